/* Seven-segment glyphs for ASCII: digits, the letters a 7-segment digit can show, '-', '_'.
 * Upper and lower case map to whichever form the segments can draw (s and S are both 5). */
#ifndef GLYPHS_H
#define GLYPHS_H
#include <stdint.h>

#define GLYPH_INVALID 0x80 /* DP alone never stands for a character */
#define SEG_DP 0x80

uint8_t glyph_for(uint8_t ascii); /* segments, or GLYPH_INVALID */

#endif
