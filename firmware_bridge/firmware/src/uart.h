/* UART0 at 115200 baud: interrupt-driven receive into a ring buffer, blocking transmit.
 * The receive ISR never blocks; on overflow bytes are dropped and counted. */
#ifndef UART_H
#define UART_H
#include <stdint.h>

void uart_init(void);
int16_t uart_getc(void);        /* next received byte, or -1 when the ring is empty */
uint8_t uart_rx_empty(void);    /* call with interrupts disabled before sleeping */
void uart_putc(uint8_t c);
uint16_t uart_overflows(void);

#endif
