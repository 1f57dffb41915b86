package io.tandem.examples;

import java.util.Locale;

/** Amounts in cents, written for people: {@code 2947000} is {@code 29,470.00}. */
public final class Money {
  private Money() {}

  /** Cents as an amount with two decimals and thousands separators. */
  public static String format(long cents) {
    String sign = cents < 0 ? "-" : "";
    long abs = Math.abs(cents);
    return String.format(Locale.ROOT, "%s%,d.%02d", sign, abs / 100, abs % 100);
  }
}
