/* UART0 driver: RX interrupt fills a power-of-two ring buffer; TX polls UDRE.
 * 115200 baud uses U2X (UBRR 16, +2.1 %), the Arduino bootloader's own setting. */
#include "uart.h"

#include <avr/interrupt.h>
#include <avr/io.h>
#include <util/atomic.h>

#include "config.h"

#define RX_SIZE 128 /* power of two */
#define RX_MASK (RX_SIZE - 1)

static volatile uint8_t rx_buf[RX_SIZE];
static volatile uint8_t rx_head; /* written by the ISR */
static volatile uint8_t rx_tail; /* written by the main loop */
static volatile uint16_t rx_overflows;

ISR(USART_RX_vect)
{
    uint8_t status = UCSR0A;
    uint8_t c = UDR0;
    uint8_t next = (rx_head + 1) & RX_MASK;
    if (status & ((1 << FE0) | (1 << DOR0))) {
        rx_overflows++; /* framing error or hardware overrun: the CRC will reject the frame */
    }
    if (next == rx_tail) {
        rx_overflows++;
        return;
    }
    rx_buf[rx_head] = c;
    rx_head = next;
}

void uart_init(void)
{
    uint16_t ubrr = (uint16_t)((F_CPU / (8UL * BAUD_RATE)) - 1UL);
    UBRR0H = (uint8_t)(ubrr >> 8);
    UBRR0L = (uint8_t)ubrr;
    UCSR0A = (1 << U2X0);
    UCSR0C = (1 << UCSZ01) | (1 << UCSZ00); /* 8N1 */
    UCSR0B = (1 << RXEN0) | (1 << TXEN0) | (1 << RXCIE0);
}

int16_t uart_getc(void)
{
    if (rx_tail == rx_head) {
        return -1;
    }
    uint8_t c = rx_buf[rx_tail];
    rx_tail = (rx_tail + 1) & RX_MASK;
    return c;
}

uint8_t uart_rx_empty(void) { return rx_tail == rx_head; }

void uart_putc(uint8_t c)
{
    while (!(UCSR0A & (1 << UDRE0))) {
    }
    UDR0 = c;
}

uint16_t uart_overflows(void)
{
    uint16_t n;
    ATOMIC_BLOCK(ATOMIC_RESTORESTATE) { n = rx_overflows; }
    return n;
}
