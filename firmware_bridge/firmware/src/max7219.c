/* SPI transfers to the MAX7219: two bytes (register, value) per LOAD pulse.
 * The chip latches the last 16 bits clocked in when LOAD rises. */
#include "max7219.h"

#include <avr/io.h>

#include "config.h"

void max7219_init(void)
{
    DDRB |= (1 << MAX_CS_BIT) | (1 << PB3) | (1 << PB5);
    PORTB |= (1 << MAX_CS_BIT);
    SPCR = (1 << SPE) | (1 << MSTR); /* mode 0, MSB first */
    SPSR = (1 << SPI2X);             /* 8 MHz: within the MAX7219's 10 MHz */
}

static void spi_send(uint8_t b)
{
    SPDR = b;
    while (!(SPSR & (1 << SPIF))) {
    }
}

void max7219_write(uint8_t reg, uint8_t value)
{
    PORTB &= ~(1 << MAX_CS_BIT);
    spi_send(reg);
    spi_send(value);
    PORTB |= (1 << MAX_CS_BIT);
}

void max7219_configure(uint8_t intensity)
{
    max7219_write(MAX_REG_TEST, 0);
    max7219_write(MAX_REG_DECODE, 0);
    max7219_write(MAX_REG_SCAN_LIMIT, 7);
    max7219_write(MAX_REG_INTENSITY, intensity & 0x0F);
    max7219_write(MAX_REG_SHUTDOWN, 1);
}
