/* What the eight digits should show: scores, turn marks, announcements, brightness, self-test.
 * Pure state plus a renderer; display_update() pushes only changed registers to the MAX7219. */
#ifndef DISPLAY_H
#define DISPLAY_H
#include <stdint.h>

void display_init(uint32_t now_ms);
void display_set_state(uint16_t left, uint16_t right, uint8_t turn, uint8_t brightness);
void display_set_brightness(uint8_t level);
/* cells: up to 8 segment patterns already parsed; side 0/1/SIDE_NONE; duration in ms. */
void display_announce(uint8_t side, const uint8_t *cells, uint8_t n, uint16_t duration_ms,
                      uint32_t now_ms);
void display_update(uint32_t now_ms);

#endif
