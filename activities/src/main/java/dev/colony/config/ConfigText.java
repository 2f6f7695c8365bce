package dev.colony.config;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * A config file's text, read as strict UTF-8. A file in another encoding (Latin-1, UTF-16) or a
 * binary one is refused with where it stops being UTF-8 text, so the user knows what to fix.
 */
final class ConfigText {
  private ConfigText() {}

  /** Why the bytes are not UTF-8 text. */
  static final class NotText extends Exception {
    NotText(String message) {
      super(message);
    }
  }

  static String read(Path file) throws IOException, NotText {
    return decode(Files.readAllBytes(file));
  }

  static String decode(byte[] bytes) throws NotText {
    if (bytes.length >= 2 && ((bytes[0] == (byte) 0xFE && bytes[1] == (byte) 0xFF)
        || (bytes[0] == (byte) 0xFF && bytes[1] == (byte) 0xFE))) {
      throw new NotText("not UTF-8 text: it is UTF-16 (it starts with a UTF-16 byte-order mark); save it as UTF-8");
    }
    int start = bytes.length >= 3 && bytes[0] == (byte) 0xEF && bytes[1] == (byte) 0xBB && bytes[2] == (byte) 0xBF ? 3 : 0;
    for (int i = start; i < bytes.length; i++) {
      if (bytes[i] == 0) {
        throw new NotText("not UTF-8 text (" + where(bytes, i) + ", byte 0x00): a binary file, or UTF-16 without a "
            + "byte-order mark; save it as UTF-8");
      }
    }
    CharsetDecoder decoder = StandardCharsets.UTF_8.newDecoder()
        .onMalformedInput(CodingErrorAction.REPORT)
        .onUnmappableCharacter(CodingErrorAction.REPORT);
    ByteBuffer in = ByteBuffer.wrap(bytes, start, bytes.length - start);
    CharBuffer out = CharBuffer.allocate(bytes.length);
    var result = decoder.decode(in, out, true);
    if (result.isError()) {
      int at = in.position();
      throw new NotText(String.format("not UTF-8 text (%s, byte 0x%02X); save it as UTF-8", where(bytes, at),
          bytes[at] & 0xff));
    }
    try {
      decoder.flush(out);
    } catch (RuntimeException e) {
      throw new NotText("not UTF-8 text (the file ends inside a character); save it as UTF-8");
    }
    return out.flip().toString();
  }

  /** "line N" of byte {@code at}, counting line feeds. */
  private static String where(byte[] bytes, int at) {
    int line = 1;
    for (int i = 0; i < at; i++) {
      if (bytes[i] == '\n') {
        line++;
      }
    }
    return "line " + line;
  }
}
