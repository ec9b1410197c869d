/* A 1 ms system tick from Timer1 (CTC), which also wakes the CPU from idle sleep. */
#ifndef CLOCK_H
#define CLOCK_H
#include <stdint.h>

void clock_init(void);
uint32_t clock_ms(void);

#endif
