package dev.siglo.consumer.key;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/** SHA-256 in hex. Thread-safe (a digest per call, cloned from a prototype). */
public final class Sha256 {
  private static final MessageDigest PROTOTYPE;
  private static final HexFormat HEX = HexFormat.of();

  static {
    try {
      PROTOTYPE = MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new ExceptionInInitializerError(e);
    }
  }

  private Sha256() {}

  /**
   * @param bytes input
   * @return lowercase hex SHA-256
   */
  public static String hex(byte[] bytes) {
    return HEX.formatHex(digest().digest(bytes));
  }

  /**
   * @param text input, hashed as UTF-8
   * @return lowercase hex SHA-256
   */
  public static String hex(String text) {
    return hex(text.getBytes(StandardCharsets.UTF_8));
  }

  private static MessageDigest digest() {
    try {
      return (MessageDigest) PROTOTYPE.clone();
    } catch (CloneNotSupportedException e) {
      throw new IllegalStateException("SHA-256 digest is not cloneable", e);
    }
  }
}
