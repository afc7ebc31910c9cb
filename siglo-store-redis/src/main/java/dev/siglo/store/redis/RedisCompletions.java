package dev.siglo.store.redis;

import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.BiFunction;
import java.util.function.Supplier;
import redis.clients.jedis.AbstractPipeline;
import redis.clients.jedis.Protocol;
import redis.clients.jedis.Response;
import redis.clients.jedis.exceptions.JedisException;
import redis.clients.jedis.params.SetParams;

/**
 * Completions of claimed string records with native commands instead of the script, on one
 * connection to a single primary: {@code WATCH} the keys and read them ({@code MGET}, one round
 * trip); then, for each key whose value is a claimed record of the completing token, the completed
 * record ({@code MULTI}, {@code SET PX}, {@code EXEC}, the second). The token check is the script's
 * fast path done by the client, and {@code EXEC} makes it atomic: it writes nothing when any of the
 * watched keys changed since it was read (a takeover, a release, a renewal, an expiry). Every key
 * not completed that way (another token's claim, a hash of 1.0, a record changed in between) goes
 * to the script, which decides from the record as before. The server then runs no script for a
 * batch of new claims completed by their holders: fed through one pipelined connection, these
 * commands cost it 2.5 to 3.1 µs per key against the script's 7.4, more than the second round trip
 * costs. Under the server clock the completed record's retention end is written as {@code
 * ~<grace>}, the key's expiry less the grace, as a native claim's lease end is (store.lua).
 * Thread-safe.
 */
final class RedisCompletions {
  private static final byte[][] NO_ARGS = new byte[0][];
  private final Supplier<AbstractPipeline> pipelines;
  private final byte[] prefix;
  private final long graceMillis;
  private final Clock clock;
  private final int header;
  private final Runnable afterRead;

  /**
   * @param pipelines opens a pipeline on one connection to the primary
   * @param prefix the store's key prefix, as records carry it
   * @param graceMillis how long a record outlives its retention
   * @param clock the injected clock, or {@code null} for the server's
   * @param header the number of arguments before the per-key ones
   */
  RedisCompletions(
      Supplier<AbstractPipeline> pipelines,
      byte[] prefix,
      long graceMillis,
      Clock clock,
      int header) {
    this(pipelines, prefix, graceMillis, clock, header, () -> {});
  }

  /** As above, with {@code afterRead} run between the two round trips (tests). */
  RedisCompletions(
      Supplier<AbstractPipeline> pipelines,
      byte[] prefix,
      long graceMillis,
      Clock clock,
      int header,
      Runnable afterRead) {
    this.afterRead = afterRead;
    this.pipelines = pipelines;
    this.prefix = prefix;
    this.graceMillis = graceMillis;
    this.clock = clock;
    this.header = header;
  }

  /**
   * @param keys the records' keys
   * @param args the arguments of store.lua's complete operation: the header, then token, encoded
   *     outcome and retention in ms per key
   * @param script runs the complete operation over keys and arguments of the same shape
   * @return per key, {@code 1L} when completed here, else the script's answer
   */
  List<Object> complete(
      List<byte[]> keys,
      List<byte[]> args,
      BiFunction<List<byte[]>, List<byte[]>, List<?>> script) {
    int n = keys.size();
    Object[] answers = new Object[n];
    byte[][] keyArray = keys.toArray(new byte[0][]);
    try (AbstractPipeline pipeline = pipelines.get()) {
      boolean watching = false;
      try {
        pipeline.sendCommand(Protocol.Command.WATCH, keyArray);
        Response<List<byte[]>> read = pipeline.mget(keyArray);
        pipeline.sync();
        watching = true;
        List<byte[]> values = read.get();
        afterRead.run();
        int written = 0;
        Response<Object> exec = null;
        for (int i = 0; i < n; i++) {
          byte[] record = completed(values.get(i), args, i);
          if (record == null) {
            continue;
          }
          if (written++ == 0) {
            pipeline.sendCommand(Protocol.Command.MULTI, NO_ARGS);
          }
          long retention = Long.parseLong(text(args.get(header + 3 * i + 2)));
          pipeline.set(keyArray[i], record, SetParams.setParams().px(retention + graceMillis));
          answers[i] = 1L;
        }
        if (written > 0) {
          exec = pipeline.sendCommand(Protocol.Command.EXEC, NO_ARGS);
          watching = false;
          pipeline.sync();
          if (exec.get() == null) {
            Arrays.fill(answers, null); // a watched key changed: nothing was written
          }
        }
      } finally {
        if (watching) {
          unwatch(pipeline);
        }
      }
    }
    rest(keys, args, answers, script);
    return Arrays.asList(answers);
  }

  /** Sends the keys without an answer yet to the script, and takes its answers. */
  private void rest(
      List<byte[]> keys,
      List<byte[]> args,
      Object[] answers,
      BiFunction<List<byte[]>, List<byte[]>, List<?>> script) {
    List<Integer> left = new ArrayList<>();
    List<byte[]> k = new ArrayList<>();
    List<byte[]> a = new ArrayList<>(args.subList(0, header));
    for (int i = 0; i < answers.length; i++) {
      if (answers[i] == null) {
        left.add(i);
        k.add(keys.get(i));
        a.addAll(args.subList(header + 3 * i, header + 3 * (i + 1)));
      }
    }
    if (left.isEmpty()) {
      return;
    }
    List<?> scripted = script.apply(k, a);
    for (int j = 0; j < left.size(); j++) {
      answers[left.get(j)] = scripted.get(j);
    }
  }

  /** A connection given back to the pool must not carry the watch into its next use. */
  private static void unwatch(AbstractPipeline pipeline) {
    try {
      pipeline.sendCommand(Protocol.Command.UNWATCH, NO_ARGS);
      pipeline.sync();
    } catch (JedisException e) {
      // a broken connection: the pool discards it, and its watch with it
    }
  }

  /**
   * The completed record that replaces {@code claimed} when it is a claimed string record of key
   * {@code i}'s token (store.lua's format: {@code p|token|lease|retention|d|x|#f|#p|<fingerprint>
   * <prefix>}), carrying its fingerprint; else {@code null}. A token with a {@code |} is never this
   * store's, and is left to the script, which compares it whole.
   */
  private byte[] completed(byte[] claimed, List<byte[]> args, int i) {
    byte[] token = args.get(header + 3 * i);
    if (claimed == null || claimed.length < token.length + 3 || contains(token, (byte) '|')) {
      return null;
    }
    if (claimed[0] != 'p' || claimed[1] != '|' || claimed[token.length + 2] != '|') {
      return null;
    }
    for (int t = 0; t < token.length; t++) {
      if (claimed[t + 2] != token[t]) {
        return null;
      }
    }
    // after the token: lease | retention | d | x | #f | #p |
    int at = token.length + 3;
    long fingerprintLength = -1;
    for (int field = 0; field < 6; field++) {
      int end = indexOf(claimed, (byte) '|', at);
      if (end < 0) {
        return null;
      }
      if (field == 4) {
        fingerprintLength = digits(claimed, at, end);
      }
      at = end + 1;
    }
    if (fingerprintLength < 0 || at + fingerprintLength > claimed.length) {
      return null;
    }
    long retention = Long.parseLong(text(args.get(header + 3 * i + 2)));
    String retentionEnd =
        clock == null ? "~" + graceMillis : Long.toString(clock.millis() + retention);
    byte[] head =
        ("c|||" + retentionEnd + "|0|0|" + fingerprintLength + "|" + prefix.length + "|")
            .getBytes(StandardCharsets.US_ASCII);
    byte[] outcome = args.get(header + 3 * i + 1);
    int f = (int) fingerprintLength;
    byte[] record = new byte[head.length + f + prefix.length + outcome.length];
    System.arraycopy(head, 0, record, 0, head.length);
    System.arraycopy(claimed, at, record, head.length, f);
    System.arraycopy(prefix, 0, record, head.length + f, prefix.length);
    System.arraycopy(outcome, 0, record, head.length + f + prefix.length, outcome.length);
    return record;
  }

  private static boolean contains(byte[] bytes, byte b) {
    return indexOf(bytes, b, 0) >= 0;
  }

  private static int indexOf(byte[] bytes, byte b, int from) {
    for (int i = from; i < bytes.length; i++) {
      if (bytes[i] == b) {
        return i;
      }
    }
    return -1;
  }

  /** The decimal number in {@code bytes[from, to)}, or -1 when it is not one. */
  private static long digits(byte[] bytes, int from, int to) {
    if (from == to || to - from > 9) {
      return -1;
    }
    long n = 0;
    for (int i = from; i < to; i++) {
      if (bytes[i] < '0' || bytes[i] > '9') {
        return -1;
      }
      n = n * 10 + (bytes[i] - '0');
    }
    return n;
  }

  private static String text(byte[] bytes) {
    return new String(bytes, StandardCharsets.US_ASCII);
  }
}
