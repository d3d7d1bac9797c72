#!/usr/bin/env python3
# mrc-datagram.py DST SPEC...: send hand-built MetaRoCE datagrams to DST's
# MetaRoCE port (61791), each with a valid ICRC, from the bed's guests
# (through `hostrun python3`). SPEC is TYPE:QPN[:COUNT]: COUNT (default 1)
# packets of TYPE (ack, nak, probe) bundled ([ENC-9]) when COUNT > 1, to
# QP number QPN, every other header byte zero, as the first remote crash
# report had it ("version 1, type ACK, 24 header words, dst_qpn 1").
# Only for the bed: it refuses any address outside 10.0.0.0/8 and fd00::/8.
import ipaddress
import socket
import struct
import sys

PORT = 61791
TYPES = {"ack": (7, 24), "nak": (8, 12), "probe": (9, 13)}


def crc32c_table():
    t = []
    for i in range(256):
        c = i
        for _ in range(8):
            c = (c >> 1) ^ 0x82F63B78 if c & 1 else c >> 1
        t.append(c)
    return t


TABLE = crc32c_table()


def icrc(data):
    c = 0xFFFFFFFF
    for b in data:
        c = TABLE[(c ^ b) & 0xFF] ^ (c >> 8)
    return c ^ 0xFFFFFFFF


def packet(kind, qpn):
    ptype, words = TYPES[kind]
    hdr = bytearray(words * 4)
    hdr[0] = 1
    hdr[1] = ptype
    hdr[2] = words
    struct.pack_into(">I", hdr, 8, qpn)
    if kind == "nak":
        hdr[32] = 1      # a NAK code the parser knows (ACCESS)
    if kind == "probe":
        hdr[32] = 1      # REQ
        hdr[33] = hdr[34] = 1
    return bytes(hdr) + struct.pack(">I", icrc(hdr))


def main():
    dst = ipaddress.ip_address(sys.argv[1])
    if dst not in ipaddress.ip_network("10.0.0.0/8") and \
       dst not in ipaddress.ip_network("fd00::/8"):
        sys.exit("refusing %s: not a bed address" % dst)
    fam = socket.AF_INET6 if dst.version == 6 else socket.AF_INET
    s = socket.socket(fam, socket.SOCK_DGRAM)
    for spec in sys.argv[2:]:
        kind, qpn, *n = spec.split(":")
        count = int(n[0]) if n else 1
        s.sendto(packet(kind, int(qpn, 0)) * count, (str(dst), PORT))
        print("sent %s x%d to QPN %s" % (kind, count, qpn))


main()
