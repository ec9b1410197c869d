/* Frame = COBS(type, seq, payload..., crc_hi, crc_lo) then 0x00; CRC-16/IBM-3740
 * (poly 0x1021, init 0xFFFF) over type..payload. A repeated (seq, crc) is ACKed, not reapplied. */
#include "link.h"

#include <avr/interrupt.h>
#include <string.h>
#include <util/crc16.h>

#include "clock.h"
#include "config.h"
#include "display.h"
#include "glyphs.h"
#include "proto.h"
#include "uart.h"

static uint8_t rx[MAX_ENCODED];
static uint8_t rx_len;
static uint8_t rx_overflow;

static uint8_t last_valid;
static uint8_t last_seq;
static uint16_t last_crc;
static uint16_t frames_ok;
static uint16_t frames_bad;

static uint16_t crc16(const uint8_t *p, uint8_t n)
{
    uint16_t crc = 0xFFFF;
    while (n--) {
        crc = _crc_xmodem_update(crc, *p++);
    }
    return crc;
}

/* Decodes in place-safe fashion into out; returns length, or -1 on a malformed block. */
static int16_t cobs_decode(const uint8_t *in, uint8_t n, uint8_t *out)
{
    uint8_t i = 0, o = 0;
    while (i < n) {
        uint8_t code = in[i++];
        if (code == 0) {
            return -1;
        }
        for (uint8_t k = 1; k < code; k++) {
            if (i >= n) {
                return -1;
            }
            out[o++] = in[i++];
        }
        if (code != 0xFF && i < n) {
            out[o++] = 0;
        }
    }
    return o;
}

static void send_frame(uint8_t type, uint8_t seq, const uint8_t *payload, uint8_t n)
{
    uint8_t raw[MAX_DECODED + 8];
    raw[0] = type;
    raw[1] = seq;
    memcpy(&raw[2], payload, n);
    uint16_t crc = crc16(raw, n + 2);
    raw[n + 2] = crc >> 8;
    raw[n + 3] = crc & 0xFF;
    uint8_t len = n + 4;
    /* COBS encode straight onto the wire */
    uint8_t start = 0;
    while (start <= len) {
        uint8_t end = start;
        while (end < len && raw[end] != 0 && end - start < 254) {
            end++;
        }
        uart_putc(end - start + 1);
        for (uint8_t k = start; k < end; k++) {
            uart_putc(raw[k]);
        }
        if (end - start == 254 && end < len) {
            start = end; /* a full block carries no implied zero */
        } else {
            start = end + 1;
        }
    }
    uart_putc(0);
}

static void nak(uint8_t seq, uint8_t reason)
{
    frames_bad++;
    send_frame(MSG_NAK, seq, &reason, 1);
}

static void ack(uint8_t seq, uint8_t type, const uint8_t *extra, uint8_t n)
{
    uint8_t p[1 + 24];
    p[0] = type;
    memcpy(&p[1], extra, n);
    send_frame(MSG_ACK, seq, p, n + 1);
}

/* Parses an ANNOUNCE word into segment cells; '.' lights the previous cell's DP. */
static int8_t parse_word(const uint8_t *w, uint8_t n, uint8_t *cells)
{
    uint8_t count = 0;
    for (uint8_t i = 0; i < n; i++) {
        if (w[i] == '.') {
            if (count == 0 || (cells[count - 1] & SEG_DP)) {
                if (count == 8) {
                    return -1;
                }
                cells[count++] = SEG_DP;
            } else {
                cells[count - 1] |= SEG_DP;
            }
            continue;
        }
        uint8_t g = glyph_for(w[i]);
        if (g == GLYPH_INVALID || count == 8) {
            return -1;
        }
        cells[count++] = g;
    }
    return count;
}

static uint8_t handle(uint8_t type, uint8_t seq, const uint8_t *p, uint8_t n, uint32_t now)
{
    switch (type) {
    case MSG_STATE: {
        if (n != 6) {
            return NAK_LENGTH;
        }
        uint16_t left = ((uint16_t)p[0] << 8) | p[1];
        uint16_t right = ((uint16_t)p[2] << 8) | p[3];
        if (left > MAX_TOTAL || right > MAX_TOTAL || (p[4] > 1 && p[4] != TURN_NONE) ||
            p[5] > MAX_BRIGHTNESS) {
            return NAK_VALUE;
        }
        display_set_state(left, right, p[4], p[5]);
        ack(seq, type, 0, 0);
        return 0;
    }
    case MSG_ANNOUNCE: {
        uint8_t cells[8];
        if (n < 2 || n > MAX_PAYLOAD) {
            return NAK_LENGTH;
        }
        int8_t count = parse_word(&p[2], n - 2, cells);
        if ((p[0] > 1 && p[0] != SIDE_NONE) || count < 0) {
            return NAK_VALUE;
        }
        uint16_t ms = (p[1] ? p[1] : 30) * 100U;
        display_announce(p[0], cells, (uint8_t)count, ms, now);
        ack(seq, type, 0, 0);
        return 0;
    }
    case MSG_BRIGHTNESS:
        if (n != 1) {
            return NAK_LENGTH;
        }
        if (p[0] > MAX_BRIGHTNESS) {
            return NAK_VALUE;
        }
        display_set_brightness(p[0]);
        ack(seq, type, 0, 0);
        return 0;
    case MSG_PING: {
        if (n != 0) {
            return NAK_LENGTH;
        }
        uint16_t ovf = uart_overflows();
        uint8_t extra[10] = {now >> 24, now >> 16, now >> 8, now,
                             frames_ok >> 8, frames_ok, frames_bad >> 8, frames_bad,
                             ovf >> 8, ovf};
        ack(seq, type, extra, sizeof extra);
        return 0;
    }
    case MSG_VERSION: {
        if (n != 0) {
            return NAK_LENGTH;
        }
        static const char version[] = FW_VERSION;
        uint8_t extra[1 + sizeof version - 1];
        extra[0] = PROTO_VERSION;
        memcpy(&extra[1], version, sizeof version - 1);
        ack(seq, type, extra, sizeof extra);
        return 0;
    }
#ifdef TEST_HOOKS
    case 0x7E: /* test builds only: hang with interrupts off until the watchdog resets us */
        ack(seq, type, 0, 0);
        cli();
        for (;;) {
        }
#endif
    default:
        return NAK_TYPE;
    }
}

static void frame_end(uint32_t now)
{
    uint8_t buf[MAX_ENCODED];
    if (rx_overflow) {
        rx_overflow = 0;
        rx_len = 0;
        nak(0, NAK_OVERFLOW);
        return;
    }
    if (rx_len == 0) {
        return; /* an empty frame: the host's leading delimiter */
    }
    int16_t n = cobs_decode(rx, rx_len, buf);
    rx_len = 0;
    if (n < 0) {
        nak(0, NAK_COBS);
        return;
    }
    if (n < 4) {
        nak(n >= 2 ? buf[1] : 0, NAK_SHORT);
        return;
    }
    uint16_t got = ((uint16_t)buf[n - 2] << 8) | buf[n - 1];
    uint16_t crc = crc16(buf, n - 2);
    if (got != crc) {
        nak(buf[1], NAK_CRC);
        return;
    }
    uint8_t type = buf[0], seq = buf[1];
    if (last_valid && seq == last_seq && crc == last_crc) {
        ack(seq, type, 0, 0); /* a resend of what was already applied */
        return;
    }
    uint8_t reason = handle(type, seq, &buf[2], n - 4, now);
    if (reason) {
        nak(seq, reason);
        return;
    }
    frames_ok++;
    if (type != MSG_PING && type != MSG_VERSION) {
        last_valid = 1;
        last_seq = seq;
        last_crc = crc;
    }
}

void link_init(uint8_t reset_flags)
{
    uint8_t p[2] = {PROTO_VERSION, reset_flags};
    send_frame(MSG_HELLO, 0, p, 2);
}

void link_feed(uint8_t byte, uint32_t now)
{
    if (byte == 0) {
        frame_end(now);
        return;
    }
    if (rx_len >= sizeof rx) {
        rx_overflow = 1; /* keep discarding until the delimiter */
        return;
    }
    rx[rx_len++] = byte;
}
