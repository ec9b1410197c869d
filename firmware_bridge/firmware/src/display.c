/* Layout: cells 0-3 (left of the board) hold side 0's total, cells 4-7 side 1's, right-aligned;
 * the DP of cell 3 or 7 marks whose turn it is. Cell i is MAX7219 digit 7-i. */
#include "display.h"

#include <string.h>

#include "config.h"
#include "glyphs.h"
#include "max7219.h"
#include "proto.h"

static uint16_t totals[2];
static uint8_t turn = TURN_NONE;
static uint8_t have_state;
static uint8_t brightness = 8;

static uint8_t ann_cells[8];
static uint8_t ann_side = SIDE_NONE;
static uint8_t ann_active;
static uint32_t ann_start;
static uint16_t ann_duration;

static uint32_t boot_ms;
static uint8_t shown[8];
static uint8_t shown_intensity;
static uint32_t last_refresh;
static uint8_t need_full;

static const uint8_t word_wait[8] = {0x00, 0x00, 0x3E, 0x77, 0x10, 0x0F, 0x00, 0x00}; /* UAit */

void display_init(uint32_t now_ms)
{
    boot_ms = now_ms;
    need_full = 1;
}

void display_set_state(uint16_t left, uint16_t right, uint8_t t, uint8_t level)
{
    totals[0] = left;
    totals[1] = right;
    turn = t;
    brightness = level;
    have_state = 1;
}

void display_set_brightness(uint8_t level) { brightness = level; }

void display_announce(uint8_t side, const uint8_t *cells, uint8_t n, uint16_t duration_ms,
                      uint32_t now_ms)
{
    uint8_t start;
    memset(ann_cells, 0, sizeof ann_cells);
    if (side == 0) {
        start = 0;
    } else if (side == 1) {
        start = 8 - n;
    } else {
        start = (8 - n) / 2;
    }
    memcpy(&ann_cells[start], cells, n);
    ann_side = side;
    ann_start = now_ms;
    ann_duration = duration_ms;
    ann_active = 1;
}

static void render_number(uint8_t *cells, uint16_t value)
{
    /* right-aligned in four cells, no leading zeros, "0" for zero */
    for (int8_t i = 3; i >= 0; i--) {
        cells[i] = glyph_for('0' + value % 10);
        value /= 10;
        if (value == 0) {
            for (int8_t j = i - 1; j >= 0; j--) {
                cells[j] = 0;
            }
            break;
        }
    }
}

static void render_scores(uint8_t *cells)
{
    render_number(&cells[0], totals[0]);
    render_number(&cells[4], totals[1]);
    if (turn == 0) {
        cells[3] |= SEG_DP;
    } else if (turn == 1) {
        cells[7] |= SEG_DP;
    }
}

static void render(uint8_t *cells, uint32_t now)
{
    if (now - boot_ms < SELFTEST_MS) {
        memset(cells, 0xFF, 8); /* self-test: every segment and DP */
        return;
    }
    if (ann_active && now - ann_start >= ann_duration) {
        ann_active = 0;
    }
    if (!have_state && !ann_active) {
        memcpy(cells, word_wait, 8);
        return;
    }
    if (ann_active && ((now - ann_start) / FLASH_PHASE_MS) % 2 == 0) {
        memcpy(cells, ann_cells, 8);
        return;
    }
    if (have_state) {
        render_scores(cells);
    } else {
        memcpy(cells, word_wait, 8);
    }
    if (ann_active && ann_side <= 1) {
        memset(&cells[ann_side * 4], 0, 4); /* the flashing side, dark half the time */
    }
}

void display_update(uint32_t now)
{
    uint8_t cells[8];
    render(cells, now);
    if (need_full || now - last_refresh >= REFRESH_MS) {
        max7219_configure(brightness);
        for (uint8_t i = 0; i < 8; i++) {
            max7219_write(MAX_REG_DIGIT0 + 7 - i, cells[i]);
        }
        memcpy(shown, cells, 8);
        shown_intensity = brightness;
        last_refresh = now;
        need_full = 0;
        return;
    }
    if (shown_intensity != brightness) {
        max7219_write(MAX_REG_INTENSITY, brightness);
        shown_intensity = brightness;
    }
    for (uint8_t i = 0; i < 8; i++) {
        if (shown[i] != cells[i]) {
            max7219_write(MAX_REG_DIGIT0 + 7 - i, cells[i]);
            shown[i] = cells[i];
        }
    }
}
