# The colony command inside an ant's session ($COLONY_BIN), without a JVM: the same client as
# dev.colony.sandbox.channel.ChannelClient, byte for byte (its wire, bounds, messages, exit codes,
# streams), in a python3 that starts in milliseconds. Run as: python3 -I -S -X utf8 THIS ARGS...
# (-X utf8: the arguments' bytes come back exactly with surrogateescape, whatever the locale).
# Only built-in modules: nothing is read from disk but this file.
import _signal

# Ctrl-C just stops it (no KeyboardInterrupt traceback).
_signal.signal(_signal.SIGINT, _signal.SIG_DFL)

import posix
import sys
import _socket

MAGIC = 0x434F4C31
MAX_REQUEST_BYTES = 128 * 1024
MAX_ARGUMENTS = 256
MAX_ANSWER_BYTES = 1024 * 1024
# sun_path's 108 bytes: the JDK refuses 107 and more ("Unix domain path too long").
MAX_SOCKET_PATH = 107
REPL = "\ufffd"
# Character.isWhitespace: what String.isBlank skips.
JAVA_WHITESPACE = frozenset(
    "\t\n\x0b\x0c\r\x1c\x1d\x1e\x1f \u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2008\u2009\u200a"
    "\u2028\u2029\u205f\u3000")


def _cont(b):
    return (b & 0xC0) == 0x80


def java_utf8(b):
    """new String(b, UTF_8) as the JDK decodes it (malformed input: U+FFFD, as many as the JDK puts)."""
    try:
        return b.decode("utf-8")
    except UnicodeDecodeError:
        pass
    out = []
    sp = 0
    sl = len(b)
    while sp < sl:
        b1 = b[sp]
        sp += 1
        if b1 < 0x80:
            out.append(chr(b1))
        elif 0xC2 <= b1 <= 0xDF:
            if sp < sl:
                b2 = b[sp]
                sp += 1
                if not _cont(b2):
                    out.append(REPL)
                    sp -= 1
                else:
                    out.append(chr(((b1 & 0x1F) << 6) | (b2 & 0x3F)))
                continue
            out.append(REPL)
            break
        elif 0xE0 <= b1 <= 0xEF:
            if sp + 1 < sl:
                b2 = b[sp]
                b3 = b[sp + 1]
                sp += 2
                if (b1 == 0xE0 and (b2 & 0xE0) == 0x80) or not _cont(b2) or not _cont(b3):
                    out.append(REPL)
                    sp -= 3
                    sp += 1 if (b1 == 0xE0 and (b2 & 0xE0) == 0x80) or not _cont(b2) else 2
                else:
                    c = ((b1 & 0x0F) << 12) | ((b2 & 0x3F) << 6) | (b3 & 0x3F)
                    out.append(REPL if 0xD800 <= c <= 0xDFFF else chr(c))
                continue
            if sp < sl and ((b1 == 0xE0 and (b[sp] & 0xE0) == 0x80) or not _cont(b[sp])):
                out.append(REPL)
                continue
            out.append(REPL)
            break
        elif 0xF0 <= b1 <= 0xF7:
            if sp + 2 < sl:
                b2 = b[sp]
                b3 = b[sp + 1]
                b4 = b[sp + 2]
                sp += 3
                uc = ((b1 & 0x07) << 18) | ((b2 & 0x3F) << 12) | ((b3 & 0x3F) << 6) | (b4 & 0x3F)
                # decode4 XORs the marker bits away: a byte that is not a continuation leaves junk,
                # but then the sequence is malformed anyway.
                if not _cont(b2) or not _cont(b3) or not _cont(b4) or not (0x10000 <= uc <= 0x10FFFF):
                    out.append(REPL)
                    sp -= 4
                    if (b1 > 0xF4 or (b1 == 0xF0 and (b2 < 0x90 or b2 > 0xBF))
                            or (b1 == 0xF4 and (b2 & 0xF0) != 0x80) or not _cont(b2)):
                        sp += 1
                    elif not _cont(b3):
                        sp += 2
                    else:
                        sp += 3
                else:
                    out.append(chr(uc))
                continue
            if b1 > 0xF4 or (sp < sl and ((b1 == 0xF0 and (b[sp] < 0x90 or b[sp] > 0xBF))
                                          or (b1 == 0xF4 and (b[sp] & 0xF0) != 0x80) or not _cont(b[sp]))):
                out.append(REPL)
                continue
            sp += 1
            out.append(REPL)
            if sp < sl and not _cont(b[sp]):
                continue
            break
        else:
            out.append(REPL)
    return "".join(out)


def utf8(b):
    """The UTF-8 bytes of what the JDK makes of bytes b (b itself when it is UTF-8)."""
    try:
        b.decode("utf-8")
        return b
    except UnicodeDecodeError:
        return java_utf8(b).encode("utf-8")


def write(fd, data):
    # PrintStream.println: the text, then a newline; a stream that is gone is not an error.
    data += b"\n"
    try:
        while data:
            data = data[posix.write(fd, data):]
    except OSError:
        pass


def error(line):
    write(2, line.encode("utf-8"))


def socket_path(s):
    """The bytes the JDK connects to for Path.of(s): redundant and trailing slashes dropped."""
    b = s.encode("utf-8")
    while b"//" in b:
        b = b.replace(b"//", b"/")
    if len(b) > 1 and b.endswith(b"/"):
        b = b[:-1]
    return b


def read_fully(sock, n, eof_is_error):
    """n bytes, or fewer at the end of the stream (an EOFException's null message when eof_is_error)."""
    parts = []
    got = 0
    while got < n:
        try:
            chunk = sock.recv(min(n - got, 65536))
        except ConnectionResetError:
            raise OSError("Connection reset")
        if not chunk:
            if eof_is_error:
                raise OSError("null")
            break
        parts.append(chunk)
        got += len(chunk)
    return b"".join(parts)


def run(argv, channel):
    """The exit code; what ChannelClient.run prints, printed. argv: the arguments' bytes; channel: $COLONY_CHANNEL's."""
    socket = None if channel is None else java_utf8(channel)
    if socket is None or all(c in JAVA_WHITESPACE for c in socket):
        error("COLONY_CHANNEL is not set: this colony command works only inside an ant's session")
        return 1
    if len(argv) > MAX_ARGUMENTS:
        error("too many arguments (%d; at most %d)" % (len(argv), MAX_ARGUMENTS))
        return 1
    parts = [utf8(a) for a in argv]
    total = sum(len(p) for p in parts)
    if total > MAX_REQUEST_BYTES:
        error("the request is {:,} bytes; at most {:,} (a message may be at most 16,000 characters)".format(
            total, MAX_REQUEST_BYTES))
        return 1
    request = [MAGIC.to_bytes(4, "big"), len(parts).to_bytes(4, "big")]
    for p in parts:
        request.append(len(p).to_bytes(4, "big"))
        request.append(p)
    request = b"".join(request)
    try:
        path = socket_path(socket)
        if len(path) >= MAX_SOCKET_PATH:
            raise OSError("Unix domain path too long")
        sock = _socket.socket(_socket.AF_UNIX, _socket.SOCK_STREAM)
        try:
            try:
                sock.connect(path)
            except OSError as e:
                raise OSError(e.strerror or str(e))
            try:
                sock.sendall(request)
            except OSError:
                # The colony answered before reading it all (a refusal): its answer is still there to read.
                pass
            head = read_fully(sock, 8, True)
            code = int.from_bytes(head[:4], "big", signed=True)
            length = int.from_bytes(head[4:], "big", signed=True)
            if length < 0 or length > MAX_ANSWER_BYTES:
                error("the colony's answer was not understood (%d bytes)" % length)
                return 1
            text = read_fully(sock, length, False)
        finally:
            sock.close()
    except OSError as e:
        why = e.strerror if e.strerror else (e.args[0] if e.args else "null")
        error("cannot reach the colony through COLONY_CHANNEL (%s): %s" % (socket, why))
        return 1
    if text:
        write(1 if code == 0 else 2, utf8(text))
    return code


if __name__ == "__main__":
    # -X utf8 decoded the arguments with surrogateescape: encoding them so gives back their bytes.
    code = run([a.encode("utf-8", "surrogateescape") for a in sys.argv[1:]], posix.environ.get(b"COLONY_CHANNEL"))
    posix._exit(code & 0xFF)
