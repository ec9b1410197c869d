/* Timer1 in CTC mode at 1 kHz: 16 MHz / 64 / 250.
 * clock_ms() reads the 32-bit counter atomically. */
#include "clock.h"

#include <avr/interrupt.h>
#include <avr/io.h>
#include <util/atomic.h>

static volatile uint32_t ticks;

ISR(TIMER1_COMPA_vect) { ticks++; }

void clock_init(void)
{
    TCCR1A = 0;
    TCCR1B = (1 << WGM12) | (1 << CS11) | (1 << CS10); /* CTC, clk/64 */
    OCR1A = 249;
    TIMSK1 = (1 << OCIE1A);
}

uint32_t clock_ms(void)
{
    uint32_t t;
    ATOMIC_BLOCK(ATOMIC_RESTORESTATE) { t = ticks; }
    return t;
}
