/* The serial link: COBS frame assembly from received bytes, CRC-16 check, dispatch, ACK/NAK.
 * Survives any byte sequence: every path either completes a frame or discards it. */
#ifndef LINK_H
#define LINK_H
#include <stdint.h>

void link_init(uint8_t reset_flags);  /* sends HELLO */
void link_feed(uint8_t byte, uint32_t now_ms);

#endif
