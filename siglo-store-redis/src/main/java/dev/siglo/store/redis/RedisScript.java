package dev.siglo.store.redis;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.List;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.exceptions.JedisNoScriptException;

/**
 * One Lua script, run by SHA-1 ({@code EVALSHA}) and loaded with {@code EVAL} when the server does
 * not know it (first use, or after a restart emptied its script cache). Keys and values are always
 * script arguments, never text of the script. Thread-safe.
 */
final class RedisScript {
  private final String name;
  private final byte[] text;
  private final byte[] sha1;

  private RedisScript(String name, byte[] text) {
    this.name = name;
    this.text = text;
    try {
      this.sha1 =
          HexFormat.of()
              .formatHex(MessageDigest.getInstance("SHA-1").digest(text))
              .getBytes(StandardCharsets.US_ASCII);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-1 unavailable", e);
    }
  }

  static RedisScript load(String name) {
    try (InputStream in = RedisScript.class.getResourceAsStream(name + ".lua")) {
      if (in == null) {
        throw new IllegalStateException("script resource " + name + ".lua missing");
      }
      return new RedisScript(name, in.readAllBytes());
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read script " + name, e);
    }
  }

  Object run(UnifiedJedis redis, List<byte[]> keys, List<byte[]> args) {
    try {
      return redis.evalsha(sha1, keys, args);
    } catch (JedisNoScriptException e) {
      return redis.eval(text, keys, args);
    }
  }

  @Override
  public String toString() {
    return "script " + name;
  }
}
