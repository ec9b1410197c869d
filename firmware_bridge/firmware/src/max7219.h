/* MAX7219 8-digit LED driver over hardware SPI (master, fosc/2), LOAD on PB2.
 * Digit registers take raw segments: bit 7 DP, bits 6..0 segments A..G. */
#ifndef MAX7219_H
#define MAX7219_H
#include <stdint.h>

enum {
    MAX_REG_DIGIT0 = 0x01,
    MAX_REG_DECODE = 0x09,
    MAX_REG_INTENSITY = 0x0A,
    MAX_REG_SCAN_LIMIT = 0x0B,
    MAX_REG_SHUTDOWN = 0x0C,
    MAX_REG_TEST = 0x0F,
};

void max7219_init(void);
void max7219_write(uint8_t reg, uint8_t value);
void max7219_configure(uint8_t intensity); /* no decode, 8 digits, on, test off */

#endif
