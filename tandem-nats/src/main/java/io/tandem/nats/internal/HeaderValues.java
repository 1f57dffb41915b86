package io.tandem.nats.internal;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;

/**
 * Percent-encoding of header values, as the CloudEvents NATS binding prescribes (section 3.1.3.2,
 * the HTTP binding's rule): space, {@code "}, {@code %} and every UTF-8 byte outside printable
 * ASCII become {@code %XX}. Everything Tandem writes itself (ids, times, numbers) is printable
 * ASCII and passes unchanged; aggregate ids, types and header values may not.
 */
public final class HeaderValues {
  private static final char[] HEX = "0123456789ABCDEF".toCharArray();

  private HeaderValues() {}

  public static String encode(String value) {
    StringBuilder out = null;
    byte[] bytes = value.getBytes(StandardCharsets.UTF_8);
    for (int i = 0; i < bytes.length; i++) {
      int c = bytes[i] & 0xFF;
      boolean plain = c > ' ' && c < 0x7F && c != '"' && c != '%';
      if (out == null) {
        if (plain) {
          continue;
        }
        out = new StringBuilder(bytes.length + 16);
        for (int j = 0; j < i; j++) {
          out.append((char) bytes[j]);
        }
      }
      if (plain) {
        out.append((char) c);
      } else {
        out.append('%').append(HEX[c >> 4]).append(HEX[c & 0xF]);
      }
    }
    return out == null ? value : out.toString();
  }

  /**
   * Reverses {@link #encode}.
   *
   * @throws IllegalArgumentException if a {@code %} is not followed by two hex digits or the bytes
   *     are not UTF-8
   */
  public static String decode(String value) {
    if (value.indexOf('%') < 0) {
      return value;
    }
    ByteArrayOutputStream bytes = new ByteArrayOutputStream(value.length());
    for (int i = 0; i < value.length(); i++) {
      int c = value.codePointAt(i);
      if (c != '%') {
        byte[] plain = Character.toString(c).getBytes(StandardCharsets.UTF_8);
        bytes.write(plain, 0, plain.length);
        i += Character.charCount(c) - 1;
        continue;
      }
      int high = i + 2 < value.length() ? Character.digit(value.charAt(i + 1), 16) : -1;
      int low = high < 0 ? -1 : Character.digit(value.charAt(i + 2), 16);
      if (low < 0) {
        throw new IllegalArgumentException(
            "'" + value + "' has a '%' at index " + i + " not followed by two hex digits");
      }
      bytes.write(high << 4 | low);
      i += 2;
    }
    try {
      return StandardCharsets.UTF_8
          .newDecoder()
          .onMalformedInput(CodingErrorAction.REPORT)
          .onUnmappableCharacter(CodingErrorAction.REPORT)
          .decode(ByteBuffer.wrap(bytes.toByteArray()))
          .toString();
    } catch (CharacterCodingException e) {
      throw new IllegalArgumentException("'" + value + "' does not decode to UTF-8 text", e);
    }
  }
}
