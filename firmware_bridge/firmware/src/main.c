/* Scoreboard firmware entry point: boot self-test, then feed received bytes to the link,
 * refresh the display, pet the watchdog, and sleep (idle) until the next interrupt. */
#include <avr/interrupt.h>
#include <avr/io.h>
#include <avr/sleep.h>
#include <avr/wdt.h>

#include "clock.h"
#include "display.h"
#include "link.h"
#include "max7219.h"
#include "uart.h"

static uint8_t reset_flags __attribute__((section(".noinit")));

/* Runs before main: a watchdog reset leaves the watchdog armed at its shortest period. */
void early_wdt_off(void) __attribute__((naked, used, section(".init3")));
void early_wdt_off(void)
{
    reset_flags = MCUSR;
    MCUSR = 0;
    wdt_disable();
}

int main(void)
{
    max7219_init();
    uart_init();
    clock_init();
    set_sleep_mode(SLEEP_MODE_IDLE);
    sei();
    display_init(clock_ms());
    display_update(clock_ms());
    link_init(reset_flags);
    wdt_enable(WDTO_500MS);

    for (;;) {
        wdt_reset();
        int16_t c;
        uint8_t budget = 32; /* keep the display fresh under a byte flood */
        while (budget-- && (c = uart_getc()) >= 0) {
            link_feed((uint8_t)c, clock_ms());
        }
        display_update(clock_ms());
        cli();
        if (uart_rx_empty()) {
            sleep_enable();
            sei();
            sleep_cpu();
            sleep_disable();
        }
        sei();
    }
}
