/* Wire protocol numbers (see firmware_bridge/PROTOCOL.md): message types, NAK reasons, sizes.
 * Must match firmware_bridge/protocol.py. */
#ifndef PROTO_H
#define PROTO_H

enum msg_type {
    MSG_STATE = 0x01,
    MSG_ANNOUNCE = 0x02,
    MSG_BRIGHTNESS = 0x03,
    MSG_PING = 0x04,
    MSG_VERSION = 0x05,
    MSG_ACK = 0x80,
    MSG_NAK = 0x81,
    MSG_HELLO = 0x82,
};

enum nak_reason {
    NAK_CRC = 1,
    NAK_SHORT = 2,
    NAK_TYPE = 3,
    NAK_LENGTH = 4,
    NAK_VALUE = 5,
    NAK_OVERFLOW = 6,
    NAK_COBS = 7,
};

#define TURN_NONE 0xFF
#define SIDE_NONE 0xFF
#define MAX_TOTAL 9999
#define MAX_BRIGHTNESS 15
#define MAX_PAYLOAD 18                  /* ANNOUNCE: side, tenths, 16 word bytes */
#define MAX_DECODED (2 + MAX_PAYLOAD + 2) /* type, seq, payload, crc16 */
#define MAX_ENCODED (MAX_DECODED + 2)   /* COBS adds at most one byte per 254 */

#endif
