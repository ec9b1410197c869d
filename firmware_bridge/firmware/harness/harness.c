/* scoreboard-sim: runs the scoreboard firmware in simavr, UART0 on a pty, MAX7219 decoded.
 * Copyright (C) 2026 the basra-table authors. GPL-3.0-or-later (links libsimavr; see LICENSE).
 *
 * This program is free software: you can redistribute it and/or modify it under the terms of
 * the GNU General Public License as published by the Free Software Foundation, either version
 * 3 of the License, or (at your option) any later version. It is distributed WITHOUT ANY
 * WARRANTY; see the GNU General Public License for more details. */
#define _GNU_SOURCE /* ppoll */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pty.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "avr_ioport.h"
#include "avr_spi.h"
#include "avr_uart.h"
#include "sim_avr.h"
#include "sim_elf.h"
#include "sim_time.h"

/* simavr clocks each SPI byte in about 100 us, so one register write takes ~200 us. */
#define SETTLE_US 600

static avr_t *avr;

/* The UART's pty. simavr's uart_pty part stalls when more than about 1 KB arrives at once (its
 * thread only moves buffered bytes after select() reports activity), so the harness runs its
 * own: bytes are read in the simulation thread, while waiting out the firmware's idle sleep, and
 * fed to the UART as its XON/XOFF flow control allows. */
static int pty_master = -1;
static char pty_name[128];
static avr_irq_t *uart_in;
static int uart_xon = 1;
static uint8_t ring[1024];
static unsigned ring_head, ring_tail; /* free-running; size is a power of two */
static struct timespec wall0;

/* MAX7219 model */
static uint8_t shift[2];   /* last two bytes clocked in while LOAD is low */
static uint8_t nshift;
static uint8_t cs_level = 1;
static uint8_t digit_reg[8]; /* MAX7219 digit 0..7 */
static unsigned writes[8];
static uint8_t decode_mode, intensity, scan_limit, shutdown_on = 1, test_mode;
static char last_json[512];

static uint64_t wall_us(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (uint64_t)(t.tv_sec - wall0.tv_sec) * 1000000u + (t.tv_nsec - wall0.tv_nsec) / 1000;
}

static void uart_feed(void)
{
    while (uart_xon && ring_head != ring_tail) {
        avr_raise_irq(uart_in, ring[ring_tail++ % sizeof ring]);
    }
}

static void pty_pump(void)
{
    unsigned room = sizeof ring - (ring_head - ring_tail);
    while (room > 0) {
        uint8_t buf[256];
        ssize_t n = read(pty_master, buf, room < sizeof buf ? room : sizeof buf);
        if (n <= 0) {
            break; /* EAGAIN: nothing more; EIO: no one has the pty open */
        }
        for (ssize_t i = 0; i < n; i++) {
            ring[ring_head++ % sizeof ring] = buf[i];
        }
        room -= (unsigned)n;
    }
    uart_feed();
}

static void uart_xon_hook(struct avr_irq_t *irq, uint32_t value, void *param)
{
    (void)irq;
    (void)value;
    (void)param;
    uart_xon = 1;
    uart_feed();
}

static void uart_xoff_hook(struct avr_irq_t *irq, uint32_t value, void *param)
{
    (void)irq;
    (void)value;
    (void)param;
    uart_xon = 0;
}

static void uart_out_hook(struct avr_irq_t *irq, uint32_t value, void *param)
{
    (void)irq;
    (void)param;
    uint8_t b = (uint8_t)value;
    if (write(pty_master, &b, 1) != 1) {
        /* host not reading and the pty buffer full: the byte is lost, as on a wire */
    }
}

/* Keep simulated time in step with the wall clock: wait until the wall clock reaches sim_us,
 * in ppoll() on the pty so a byte from the host ends the wait at once. A firmware that sleeps
 * is paced by simavr's sleep callback; a busy one (even a hung one) by the main loop. */
static void wait_until(uint64_t sim_us)
{
    uint64_t now = wall_us();
    if (now > sim_us + 50000) {
        /* far behind (the host was busy): re-anchor rather than race to catch up */
        uint64_t lag = now - sim_us;
        wall0.tv_sec += lag / 1000000u;
        wall0.tv_nsec += (lag % 1000000u) * 1000;
        if (wall0.tv_nsec >= 1000000000) {
            wall0.tv_sec++;
            wall0.tv_nsec -= 1000000000;
        }
    } else if (sim_us > now) {
        uint64_t us = sim_us - now;
        struct pollfd pfd = {.fd = pty_master, .events = POLLIN};
        struct timespec ts = {.tv_sec = us / 1000000u, .tv_nsec = (us % 1000000u) * 1000};
        if (ring_head - ring_tail >= sizeof ring) {
            nanosleep(&ts, NULL); /* ring full: the UART must drain first */
        } else {
            int r = ppoll(&pfd, 1, &ts, NULL);
            if (r > 0 && !(pfd.revents & POLLIN)) {
                nanosleep(&ts, NULL); /* hang-up without data: just wait */
            }
        }
    }
    pty_pump();
}

static void harness_sleep(avr_t *a, avr_cycle_count_t how_long)
{
    wait_until(avr_cycles_to_usec(a, a->cycle + how_long));
}

static void on_exit_signal(int sig)
{
    (void)sig;
    _exit(0);
}

/* Reverse glyph lookup: digits win where a letter shares the pattern (S=5, O=0). */
static char glyph_char(uint8_t seg)
{
    static const struct { uint8_t seg; char c; } table[] = {
        {0x7E, '0'}, {0x30, '1'}, {0x6D, '2'}, {0x79, '3'}, {0x33, '4'}, {0x5B, '5'},
        {0x5F, '6'}, {0x70, '7'}, {0x7F, '8'}, {0x7B, '9'}, {0x77, 'A'}, {0x1F, 'b'},
        {0x4E, 'C'}, {0x0D, 'c'}, {0x3D, 'd'}, {0x4F, 'E'}, {0x47, 'F'}, {0x5E, 'G'},
        {0x37, 'H'}, {0x17, 'h'}, {0x06, 'I'}, {0x10, 'i'}, {0x3C, 'J'}, {0x0E, 'L'},
        {0x15, 'n'}, {0x1D, 'o'}, {0x67, 'P'}, {0x73, 'q'}, {0x05, 'r'}, {0x0F, 't'},
        {0x3E, 'U'}, {0x1C, 'u'}, {0x3B, 'y'}, {0x01, '-'}, {0x08, '_'}, {0x00, ' '},
    };
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++) {
        if (table[i].seg == seg) {
            return table[i].c;
        }
    }
    return '?';
}

/* Code B font (decode mode): 0-9, '-', E, H, L, P, blank. */
static char code_b_char(uint8_t v)
{
    static const char font[16] = "0123456789-EHLP ";
    return font[v & 0x0F];
}

/* The segments digit d actually lights, after test/shutdown/scan-limit/decode. */
static uint8_t lit_segments(int d)
{
    if (test_mode) {
        return 0xFF;
    }
    if (shutdown_on == 0 || d > scan_limit) {
        return 0x00;
    }
    return digit_reg[d];
}

static void emit_display(void)
{
    char text[17];
    int n = 0;
    uint8_t segs[8];
    for (int cell = 0; cell < 8; cell++) {
        int d = 7 - cell; /* cell 0 (leftmost) is MAX7219 digit 7 */
        uint8_t v = lit_segments(d);
        uint8_t dp = v & 0x80;
        char c;
        if (!test_mode && shutdown_on && d <= scan_limit && (decode_mode & (1 << d))) {
            c = code_b_char(v);
            segs[cell] = v; /* raw register value in decode mode */
        } else {
            c = glyph_char(v & 0x7F);
            segs[cell] = v;
        }
        text[n++] = c;
        if (dp) {
            text[n++] = '.';
        }
    }
    text[n] = 0;
    char json[512];
    snprintf(json, sizeof json,
             "\"text\": \"%s\", \"segments\": [%u, %u, %u, %u, %u, %u, %u, %u], "
             "\"intensity\": %u, \"shutdown\": %s, \"test\": %s, \"decode\": %u, "
             "\"scan_limit\": %u",
             text, segs[0], segs[1], segs[2], segs[3], segs[4], segs[5], segs[6], segs[7],
             intensity, shutdown_on ? "false" : "true", test_mode ? "true" : "false",
             decode_mode, scan_limit);
    if (strcmp(json, last_json) == 0) {
        return;
    }
    strcpy(last_json, json);
    printf("{\"event\": \"display\", \"t_us\": %llu, %s, \"writes\": [%u, %u, %u, %u, %u, %u, "
           "%u, %u]}\n",
           (unsigned long long)avr_cycles_to_usec(avr, avr->cycle), json, writes[7], writes[6],
           writes[5], writes[4], writes[3], writes[2], writes[1], writes[0]);
    fflush(stdout);
}

static avr_cycle_count_t settle_timer(avr_t *a, avr_cycle_count_t when, void *param)
{
    (void)a;
    (void)when;
    (void)param;
    emit_display();
    return 0;
}

static void latch(uint8_t reg, uint8_t value)
{
    reg &= 0x0F;
    if (reg >= 1 && reg <= 8) {
        digit_reg[reg - 1] = value;
        writes[reg - 1]++;
    } else if (reg == 0x09) {
        decode_mode = value;
    } else if (reg == 0x0A) {
        intensity = value & 0x0F;
    } else if (reg == 0x0B) {
        scan_limit = value & 0x07;
    } else if (reg == 0x0C) {
        shutdown_on = value & 1;
    } else if (reg == 0x0F) {
        test_mode = value & 1;
    }
    avr_cycle_timer_cancel(avr, settle_timer, NULL);
    avr_cycle_timer_register_usec(avr, SETTLE_US, settle_timer, NULL);
}

static void spi_out(struct avr_irq_t *irq, uint32_t value, void *param)
{
    (void)irq;
    (void)param;
    if (cs_level) {
        return; /* LOAD high: the MAX7219 ignores the clock */
    }
    shift[0] = shift[1];
    shift[1] = (uint8_t)value;
    if (nshift < 2) {
        nshift++;
    }
}

static void cs_changed(struct avr_irq_t *irq, uint32_t value, void *param)
{
    (void)irq;
    (void)param;
    uint8_t level = value ? 1 : 0;
    if (!cs_level && level && nshift == 2) {
        latch(shift[0], shift[1]); /* LOAD rising latches the last 16 bits */
    }
    if (cs_level && !level) {
        nshift = 0;
    }
    cs_level = level;
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s FIRMWARE.elf\n", argv[0]);
        return 2;
    }
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    signal(SIGTERM, on_exit_signal);
    signal(SIGINT, on_exit_signal);
    signal(SIGHUP, on_exit_signal);
    signal(SIGPIPE, SIG_IGN);

    /* simavr and uart_pty print banners on stdout: keep stdout for JSON by sending them to
     * stderr until the harness is ready. */
    fflush(stdout);
    int saved = dup(STDOUT_FILENO);
    dup2(STDERR_FILENO, STDOUT_FILENO);

    elf_firmware_t fw;
    memset(&fw, 0, sizeof fw);
    if (elf_read_firmware(argv[1], &fw) != 0) {
        fprintf(stderr, "scoreboard-sim: cannot read %s\n", argv[1]);
        return 2;
    }
    strcpy(fw.mmcu, "atmega328p");
    fw.frequency = 16000000;
    avr = avr_make_mcu_by_name(fw.mmcu);
    if (!avr) {
        fprintf(stderr, "scoreboard-sim: simavr lacks atmega328p\n");
        return 2;
    }
    avr_init(avr);
    avr_load_firmware(avr, &fw);

    /* No console echo of UART output (it would corrupt our JSON), no poll-sleep hack. */
    uint32_t flags = 0;
    avr_ioctl(avr, AVR_IOCTL_UART_SET_FLAGS('0'), &flags);

    int pty_slave = -1;
    if (openpty(&pty_master, &pty_slave, pty_name, NULL, NULL) != 0) {
        perror("scoreboard-sim: openpty");
        return 2;
    }
    struct termios tio;
    tcgetattr(pty_slave, &tio);
    cfmakeraw(&tio);
    tcsetattr(pty_slave, TCSANOW, &tio);
    /* pty_slave stays open: the line settings persist and a host may come and go */
    fcntl(pty_master, F_SETFL, fcntl(pty_master, F_GETFL) | O_NONBLOCK);
    uart_in = avr_io_getirq(avr, AVR_IOCTL_UART_GETIRQ('0'), UART_IRQ_INPUT);
    avr_irq_register_notify(avr_io_getirq(avr, AVR_IOCTL_UART_GETIRQ('0'), UART_IRQ_OUTPUT),
                            uart_out_hook, NULL);
    avr_irq_register_notify(avr_io_getirq(avr, AVR_IOCTL_UART_GETIRQ('0'), UART_IRQ_OUT_XON),
                            uart_xon_hook, NULL);
    avr_irq_register_notify(avr_io_getirq(avr, AVR_IOCTL_UART_GETIRQ('0'), UART_IRQ_OUT_XOFF),
                            uart_xoff_hook, NULL);
    avr->sleep = harness_sleep;
    clock_gettime(CLOCK_MONOTONIC, &wall0);

    /* Trap: the ATmega328P's SPI is looked up by the integer 0, not the character '0'. */
    avr_irq_register_notify(avr_io_getirq(avr, AVR_IOCTL_SPI_GETIRQ(0), SPI_IRQ_OUTPUT), spi_out,
                            NULL);
    avr_irq_register_notify(avr_io_getirq(avr, AVR_IOCTL_IOPORT_GETIRQ('B'), 2), cs_changed,
                            NULL);

    fflush(stdout);
    dup2(saved, STDOUT_FILENO);
    close(saved);
    printf("{\"event\": \"pty\", \"path\": \"%s\"}\n", pty_name);
    fflush(stdout);

    for (unsigned n = 0;; n++) {
        if ((n & 1023) == 0) {
            /* a busy firmware never sleeps: pace it here, and look at the pty meanwhile */
            uint64_t sim_us = avr_cycles_to_usec(avr, avr->cycle);
            if (sim_us > wall_us() + 2000) {
                wait_until(sim_us);
            } else {
                pty_pump();
            }
        }
        int state = avr_run(avr);
        if (state == cpu_Done || state == cpu_Crashed) {
            printf("{\"event\": \"exit\", \"state\": \"%s\"}\n",
                   state == cpu_Done ? "done" : "crashed");
            fflush(stdout);
            _exit(1);
        }
    }
}
