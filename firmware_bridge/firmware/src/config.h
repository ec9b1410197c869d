/* Build-time constants shared by the scoreboard firmware modules.
 * Pins, baud rate, protocol numbers: one place to change them. */
#ifndef CONFIG_H
#define CONFIG_H

#define BAUD_RATE 115200UL
#define PROTO_VERSION 1
#define FW_VERSION "basra-scoreboard 1.0.0"

/* MAX7219 LOAD/CS on PB2 (Arduino D10), MOSI PB3 (D11), SCK PB5 (D13). */
#define MAX_CS_BIT PB2

#define SELFTEST_MS 400    /* boot self-test: every segment lit */
#define FLASH_PHASE_MS 250 /* announce: word / blank-side alternation */
#define REFRESH_MS 1000    /* rewrite every MAX7219 register (recovers from glitches) */

#endif
