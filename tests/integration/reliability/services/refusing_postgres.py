#!/usr/bin/env python3
"""A PostgreSQL server that refuses every password, for the reliability tests: it speaks just
enough of the protocol (version 3) to ask a client for its password in clear text, writes the
password it received to the file named by --log (one line per attempt), and answers as a real
server does when the password is wrong: FATAL 28P01, password authentication failed. It listens on
127.0.0.1, on a port the system picks, and writes that port to --port-file once it listens.

    refusing_postgres.py --port-file FILE --log FILE
"""
import argparse
import os
import socket
import struct
import threading

SSL_REQUEST = 80877103
GSS_REQUEST = 80877104
PROTOCOL_3 = 196608


def read_exactly(conn, n):
    data = b""
    while len(data) < n:
        chunk = conn.recv(n - len(data))
        if not chunk:
            raise EOFError
        data += chunk
    return data


def error_response(user):
    fields = b""
    for code, text in (("S", "FATAL"), ("V", "FATAL"), ("C", "28P01"),
                       ("M", f'password authentication failed for user "{user}"')):
        fields += code.encode() + text.encode() + b"\0"
    fields += b"\0"
    return b"E" + struct.pack("!I", 4 + len(fields)) + fields


def serve(conn, log):
    with conn:
        # Startup packets: SSL and GSS encryption requests are refused ('N'), then the startup
        # message with the user's name.
        while True:
            length, code = struct.unpack("!II", read_exactly(conn, 8))
            body = read_exactly(conn, length - 8)
            if code in (SSL_REQUEST, GSS_REQUEST):
                conn.sendall(b"N")
                continue
            if code != PROTOCOL_3:
                return
            parts = body.split(b"\0")
            params = dict(zip(parts[0::2], parts[1::2]))
            user = params.get(b"user", b"").decode(errors="replace")
            break
        conn.sendall(b"R" + struct.pack("!II", 8, 3))  # AuthenticationCleartextPassword
        kind = read_exactly(conn, 1)
        (length,) = struct.unpack("!I", read_exactly(conn, 4))
        password = read_exactly(conn, length - 4).rstrip(b"\0")
        if kind == b"p":
            with open(log, "ab") as out:
                out.write(password + b"\n")
        conn.sendall(error_response(user))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--port-file", required=True)
    parser.add_argument("--log", required=True)
    args = parser.parse_args()
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind(("127.0.0.1", 0))
    listener.listen(16)
    tmp = args.port_file + ".tmp"
    with open(tmp, "w", encoding="ascii") as out:
        out.write(f"{listener.getsockname()[1]}\n")
    os.rename(tmp, args.port_file)  # whole, or not at all
    while True:
        conn, _ = listener.accept()

        def attempt(c=conn):
            try:
                serve(c, args.log)
            except (EOFError, OSError, struct.error):
                pass

        threading.Thread(target=attempt, daemon=True).start()


if __name__ == "__main__":
    main()
