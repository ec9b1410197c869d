"""A byte-level fault injector between a bridge and a serial device, for tests and soak runs.

Listens on 127.0.0.1 (connect with `socket://127.0.0.1:PORT`); drops, corrupts, duplicates or
delays each byte with a given probability, in both directions.
"""

from __future__ import annotations

import random
import socket
import threading
import time
from dataclasses import dataclass, field

import serial


@dataclass
class FaultCounts:
    """How many bytes each fault hit, per direction."""

    passed: int = 0
    dropped: int = 0
    corrupted: int = 0
    duplicated: int = 0
    delayed: int = 0
    log: list[str] = field(default_factory=list, repr=False)


class FaultProxy:
    """proxy = FaultProxy(device_path, rate=0.01, seed=1).start(); proxy.url -> socket://..."""

    def __init__(self, device: str, rate: float = 0.01, seed: int = 0, max_delay: float = 0.02):
        self.device = device
        self.rate = rate
        self.max_delay = max_delay
        self._rng = random.Random(seed)
        self._rng_lock = threading.Lock()
        self._server = socket.create_server(("127.0.0.1", 0))
        self.url = f"socket://127.0.0.1:{self._server.getsockname()[1]}"
        self.to_device = FaultCounts()
        self.to_host = FaultCounts()
        self._stop = threading.Event()
        self._threads: list[threading.Thread] = []

    def start(self) -> FaultProxy:
        t = threading.Thread(target=self._accept, name="faultproxy", daemon=True)
        t.start()
        self._threads.append(t)
        return self

    def close(self) -> None:
        self._stop.set()
        self._server.close()
        for t in self._threads:
            t.join(timeout=2)

    def _faulty(self, data: bytes, counts: FaultCounts) -> list[tuple[float, bytes]]:
        """(delay before sending, bytes) pieces for data after faults, merged where possible."""
        pieces = self._faulty_bytes(data, counts)
        out: list[tuple[float, bytes]] = []
        for delay, piece in pieces:
            if out and not delay:
                out[-1] = (out[-1][0], out[-1][1] + piece)
            else:
                out.append((delay, piece))
        return out

    def _faulty_bytes(self, data: bytes, counts: FaultCounts) -> list[tuple[float, bytes]]:
        out: list[tuple[float, bytes]] = []
        with self._rng_lock:
            for b in data:
                if self._rng.random() >= self.rate:
                    counts.passed += 1
                    out.append((0.0, bytes([b])))
                    continue
                kind = self._rng.randrange(4)
                if kind == 0:
                    counts.dropped += 1
                elif kind == 1:
                    counts.corrupted += 1
                    out.append((0.0, bytes([b ^ (1 << self._rng.randrange(8))])))
                elif kind == 2:
                    counts.duplicated += 1
                    out.append((0.0, bytes([b, b])))
                else:
                    counts.delayed += 1
                    out.append((self._rng.uniform(0.001, self.max_delay), bytes([b])))
        return out

    def _accept(self) -> None:
        self._server.settimeout(0.1)
        while not self._stop.is_set():
            try:
                client, _ = self._server.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            client.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)  # no Nagle stalls
            try:
                dev = serial.serial_for_url(self.device, timeout=0.01)
            except (serial.SerialException, OSError):
                client.close()
                continue
            self._pump_pair(client, dev)

    def _pump_pair(self, client: socket.socket, dev: serial.SerialBase) -> None:
        done = threading.Event()

        def up() -> None:  # host -> device
            client.settimeout(0.05)
            while not done.is_set() and not self._stop.is_set():
                try:
                    data = client.recv(4096)
                except TimeoutError:
                    continue
                except OSError:
                    break
                if not data:
                    break
                try:
                    for delay, piece in self._faulty(data, self.to_device):
                        if delay:
                            time.sleep(delay)
                        dev.write(piece)
                except (serial.SerialException, OSError):
                    break
            done.set()

        def down() -> None:  # device -> host
            while not done.is_set() and not self._stop.is_set():
                try:
                    data = dev.read(max(1, dev.in_waiting))
                except (serial.SerialException, OSError):
                    break
                if not data:
                    continue
                try:
                    for delay, piece in self._faulty(data, self.to_host):
                        if delay:
                            time.sleep(delay)
                        client.sendall(piece)
                except OSError:
                    break
            done.set()

        threads = [threading.Thread(target=f, daemon=True) for f in (up, down)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        client.close()
        dev.close()
