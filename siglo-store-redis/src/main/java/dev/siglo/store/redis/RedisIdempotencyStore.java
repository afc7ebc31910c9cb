package dev.siglo.store.redis;

import dev.siglo.consumer.error.IdempotencyKeyReuseException;
import dev.siglo.consumer.error.IdempotencyStoreUnavailableException;
import dev.siglo.consumer.error.InvalidIdempotencyKeyException;
import dev.siglo.consumer.error.OutcomeTooLargeException;
import dev.siglo.consumer.error.SigloConfigurationException;
import dev.siglo.consumer.key.IdempotencyKeys;
import dev.siglo.consumer.store.BatchClaimResult;
import dev.siglo.consumer.store.BatchCompleteResult;
import dev.siglo.consumer.store.BatchRenewResult;
import dev.siglo.consumer.store.ClaimRequest;
import dev.siglo.consumer.store.ClaimResult;
import dev.siglo.consumer.store.ClaimToken;
import dev.siglo.consumer.store.CompleteRequest;
import dev.siglo.consumer.store.IdempotencyStore;
import dev.siglo.consumer.store.Outcome;
import dev.siglo.consumer.store.RenewRequest;
import dev.siglo.consumer.store.StoreKeys;
import dev.siglo.consumer.store.StoredRecord;
import dev.siglo.consumer.support.NamedThreads;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;
import redis.clients.jedis.AbstractPipeline;
import redis.clients.jedis.Connection;
import redis.clients.jedis.ConnectionPool;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.Pipeline;
import redis.clients.jedis.RedisClusterClient;
import redis.clients.jedis.Response;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.exceptions.JedisAccessControlException;
import redis.clients.jedis.exceptions.JedisConnectionException;
import redis.clients.jedis.exceptions.JedisDataException;
import redis.clients.jedis.exceptions.JedisException;
import redis.clients.jedis.params.ScanParams;
import redis.clients.jedis.params.SetParams;
import redis.clients.jedis.resps.ScanResult;
import redis.clients.jedis.util.JedisClusterCRC16;

/**
 * An {@link IdempotencyStore} on Redis 6.2+ (jedis). One Redis string per record ({@code
 * <prefix><key>}: state, token, lease end, retention end, counts, fingerprint, store prefix,
 * outcome; the format is described in {@code store.lua}). A claim of a key that has no record is a
 * native {@code SET NX PX}, which only succeeds on an absent key; a completion by the claim's
 * holder is a native {@code SET} in a transaction that aborts when the record changed after it was
 * read; every other state change is one operation of the {@code store.lua} script, which checks the
 * owner token and the stored timestamps, so the store is correct under any interleaving of
 * processes. Keys and values are script arguments, never script text. Records written as hashes by
 * Siglo 1.0 are read too, and written as hashes with {@link RedisStoreConfig.Builder#hashRecords}
 * (a rolling upgrade).
 *
 * <p>Expiry is decided by the stored timestamps against the Redis server's clock ({@code TIME}),
 * one clock for all processes, unless {@link RedisStoreConfig.Builder#clock} injects one (tests). A
 * native claim under the server clock stores its lease end as the key's expiry less the grace, read
 * back with {@code PTTL}. Redis's own key expiry (lifetime plus a grace) otherwise only collects
 * garbage.
 *
 * <p>Three deployments ({@link RedisStoreConfig}): a standalone server; the primary Redis Sentinel
 * names, followed across failovers; a Redis Cluster, where each batch is split by hash slot (a
 * script touches one slot) and the groups go out in one pipeline. {@link
 * RedisStoreConfig#replicaAcks()} makes claims and completions wait for replicas ({@code WAIT}).
 *
 * <p>{@link #claimAll} claims a whole batch in one pipeline of {@code SET NX PX} (one round trip),
 * and the keys that had a record in one script call after it. On a single primary (or through
 * Sentinel) {@link #completeAll} completes the keys its tokens hold with native commands, fenced by
 * {@code WATCH} ({@link RedisCompletions}, two round trips and no script), and any other key in one
 * script call; on a cluster, with hash records or with replica acknowledgements, a completion is
 * one script call per slot group. Connections come from a pool created once; a connection failure
 * or timeout becomes {@link IdempotencyStoreUnavailableException} with the cause attached, and the
 * store recovers by itself when Redis comes back. Rejected credentials become a {@link
 * SigloConfigurationException} that never contains the password. Thread-safe.
 */
public final class RedisIdempotencyStore implements IdempotencyStore {
  private static final RedisScript STORE = RedisScript.load("store");
  private static final RedisScript CLAIM = STORE.named("claim");
  private static final RedisScript COMPLETE = STORE.named("complete");
  private static final RedisScript FAIL = STORE.named("fail");
  private static final RedisScript FORGET = STORE.named("forget");
  private static final RedisScript RENEW = STORE.named("renew");
  private static final RedisScript GET = STORE.named("get");
  private static final RedisScript CLEAR = STORE.named("clear");
  private static final RedisScript INSPECT = STORE.named("inspect");
  private static final RedisScript REMOVE = STORE.named("remove");
  private static final byte[] SERVER_CLOCK = new byte[0];
  private static final byte[] ONE = {'1'};
  private static final byte[] ZERO = {'0'};
  private static final byte[] HASHES = {'h'};
  private static final byte[] STRINGS = {'c'};

  /**
   * The arguments every operation of store.lua starts with: operation, now, grace, prefix, format.
   */
  private static final int HEADER = 5;

  private final RedisStoreConfig config;
  private final UnifiedJedis redis;
  private final byte[] prefix;
  private final byte[] grace;
  private final byte[] format;
  // a claim of an absent key is a native SET NX PX, not a script: strings only, and not when the
  // claim must wait for replicas (the script's path does that)
  private final boolean nativeClaims;
  private final AtomicBoolean closed = new AtomicBoolean();
  private final RedisCompletions completions;
  // on a cluster: sends a pipeline's calls to its nodes at once (null on a single primary)
  private final ExecutorService nodeSenders;

  private RedisIdempotencyStore(RedisStoreConfig config, UnifiedJedis redis) {
    this.config = config;
    this.redis = redis;
    this.prefix = config.keyPrefix().getBytes(StandardCharsets.UTF_8);
    this.grace = number(config.gcGrace().toMillis());
    this.format = config.hashRecords() ? HASHES : STRINGS;
    this.nativeClaims = !config.hashRecords() && config.replicaAcks() == 0;
    this.completions =
        new RedisCompletions(
            redis::pipelined, prefix, config.gcGrace().toMillis(), config.clock(), HEADER);
    this.nodeSenders =
        redis instanceof RedisClusterClient
            ? Executors.newCachedThreadPool(NamedThreads.daemon("siglo-redis-nodes", true))
            : null;
  }

  /**
   * Creates the store and its connection pool. No connection is made until the first operation (see
   * {@link #checkConnection()}).
   *
   * @param config the settings
   * @return the store
   */
  public static RedisIdempotencyStore of(RedisStoreConfig config) {
    Objects.requireNonNull(config, "config");
    return new RedisIdempotencyStore(config, RedisClients.create(config));
  }

  /**
   * Checks that Redis answers and accepts the credentials.
   *
   * @throws IdempotencyStoreUnavailableException when Redis cannot be reached
   * @throws SigloConfigurationException when Redis rejects the credentials
   */
  @Override
  public void checkConnection() {
    call("PING", () -> redis.ping());
  }

  @Override
  public ClaimResult claim(ClaimRequest request) {
    return claimAll(List.of(request)).get(0).resultOrThrow();
  }

  /**
   * Claims the batch: first each key with a native {@code SET NX PX} of a claimed record (all in
   * one pipeline), which claims every key that has no record; then the keys that had one in one
   * script call, which decides from the record (completed, in progress, released, abandoned). A
   * batch of new keys costs one round trip and no script.
   */
  @Override
  public List<BatchClaimResult> claimAll(List<ClaimRequest> requests) {
    BatchClaimResult[] out = new BatchClaimResult[requests.size()];
    List<Integer> valid = new ArrayList<>(requests.size());
    List<byte[]> validKeys = new ArrayList<>(requests.size());
    List<ClaimToken> tokens = new ArrayList<>(requests.size());
    for (int i = 0; i < requests.size(); i++) {
      try {
        validKeys.add(redisKey(requests.get(i).key()));
      } catch (InvalidIdempotencyKeyException e) {
        out[i] = BatchClaimResult.failed(requests.get(i), e);
        continue;
      }
      valid.add(i);
      tokens.add(ClaimToken.random());
    }
    if (valid.isEmpty()) {
      return List.of(out);
    }
    RuntimeException[] failed = new RuntimeException[valid.size()];
    boolean[] claimed =
        nativeClaims
            ? claimAbsent(requests, valid, validKeys, tokens, failed)
            : new boolean[valid.size()];
    List<Integer> scripted = new ArrayList<>(valid.size());
    List<byte[]> keys = new ArrayList<>(valid.size());
    List<byte[]> args = header(CLAIM, 4 * valid.size());
    for (int v = 0; v < valid.size(); v++) {
      ClaimRequest r = requests.get(valid.get(v));
      if (failed[v] != null) {
        out[valid.get(v)] = BatchClaimResult.failed(r, failed[v]);
        continue;
      }
      if (claimed[v]) {
        out[valid.get(v)] =
            BatchClaimResult.of(
                r, new ClaimResult.Claimed(tokens.get(v), leaseEstimate(r), false, 1, 0));
        continue;
      }
      scripted.add(v);
      keys.add(validKeys.get(v));
      args.add(bytes(tokens.get(v).value()));
      args.add(r.fingerprint() == null ? new byte[0] : bytes(r.fingerprint()));
      args.add(number(r.lease().toMillis()));
      args.add(r.newDelivery() ? ONE : ZERO);
    }
    if (!scripted.isEmpty()) {
      List<?> answers = runBatch("claim", CLAIM, keys, args, HEADER, 4);
      for (int k = 0; k < scripted.size(); k++) {
        int v = scripted.get(k);
        ClaimRequest r = requests.get(valid.get(v));
        out[valid.get(v)] = answer(r, tokens.get(v), (List<?>) answers.get(k));
      }
    }
    return List.of(out);
  }

  /**
   * Writes a claimed record for each key that has none ({@code SET NX PX}, one pipeline; on a
   * cluster split by node).
   *
   * @param failed filled, per key, with the failure when its node could not be reached (a cluster
   *     node that died: the key's result is that failure, and the client's slot map is renewed)
   * @return per key, whether it was claimed; a key that had a record, or whose command the server
   *     refused (a moved slot, a server error), is not, and goes to the script, which reports a
   *     failure itself
   */
  private boolean[] claimAbsent(
      List<ClaimRequest> requests,
      List<Integer> valid,
      List<byte[]> keys,
      List<ClaimToken> tokens,
      RuntimeException[] failed) {
    long graceMillis = config.gcGrace().toMillis();
    return call(
        "claim",
        () -> {
          List<Response<String>> answers = new ArrayList<>(keys.size());
          try (AbstractPipeline pipeline =
              redis instanceof RedisClusterClient cluster
                  ? cluster.pipelined(nodeSenders)
                  : redis.pipelined()) {
            for (int v = 0; v < keys.size(); v++) {
              ClaimRequest r = requests.get(valid.get(v));
              long lease = r.lease().toMillis();
              byte[] record = claimedRecord(tokens.get(v), r, lease, graceMillis);
              SetParams params = SetParams.setParams().nx().px(lease + graceMillis);
              byte[] key = keys.get(v);
              answers.add(
                  redis instanceof RedisClusterClient
                      ? sendToNode(() -> pipeline.set(key, record, params), v, failed)
                      : pipeline.set(key, record, params));
            }
            pipeline.sync();
          }
          boolean[] claimed = new boolean[keys.size()];
          for (int v = 0; v < keys.size(); v++) {
            if (failed[v] != null) {
              continue;
            }
            try {
              claimed[v] = "OK".equals(answers.get(v).get());
            } catch (JedisDataException e) {
              claimed[v] = false;
            } catch (IllegalStateException e) {
              // a cluster pipeline leaves the answers of a node it lost during sync unset
              failed[v] = unavailable("claim", e);
            }
          }
          if (Arrays.stream(failed).anyMatch(Objects::nonNull)) {
            refreshTopology();
          }
          return claimed;
        });
  }

  /** Appends one command of a cluster pipeline; a node it cannot connect to fails only that key. */
  private <T> Response<T> sendToNode(
      Supplier<Response<T>> command, int v, RuntimeException[] failed) {
    try {
      return command.get();
    } catch (JedisConnectionException e) {
      failed[v] = unavailable("claim", e);
      return null;
    }
  }

  /** After a node failed: the cluster client's slot map is read again, to follow a failover. */
  private void refreshTopology() {
    try {
      ((RedisClusterClient) redis).refreshClusterTopology();
    } catch (JedisException e) {
      // every node still unreachable: the next failure tries again
    }
  }

  /**
   * A claimed record in store.lua's format, for {@link #claimAbsent}: under the server clock its
   * lease end is not known here, so it is written as the key's expiry less the grace ({@code
   * ~<grace>}), which the scripts read with {@code PTTL} on the server's clock.
   */
  private byte[] claimedRecord(ClaimToken token, ClaimRequest r, long lease, long graceMillis) {
    byte[] fingerprint = r.fingerprint() == null ? new byte[0] : bytes(r.fingerprint());
    String head =
        "p|"
            + token.value()
            + "|"
            + (config.clock() == null ? "~" + graceMillis : config.clock().millis() + lease)
            + "||"
            + (r.newDelivery() ? 1 : 0)
            + "|0|"
            + fingerprint.length
            + "|"
            + prefix.length
            + "|";
    byte[] h = head.getBytes(StandardCharsets.UTF_8);
    byte[] record = Arrays.copyOf(h, h.length + fingerprint.length + prefix.length);
    System.arraycopy(fingerprint, 0, record, h.length, fingerprint.length);
    System.arraycopy(prefix, 0, record, h.length + fingerprint.length, prefix.length);
    return record;
  }

  /**
   * The lease end of a claim written by {@link #claimAbsent}: exact under an injected clock; under
   * the server clock, this process's clock plus the lease (the record itself ends on the server's).
   */
  private Instant leaseEstimate(ClaimRequest r) {
    return (config.clock() == null ? Instant.now() : Instant.ofEpochMilli(config.clock().millis()))
        .plus(r.lease());
  }

  private BatchClaimResult answer(ClaimRequest r, ClaimToken token, List<?> answer) {
    String kind = text(answer.get(0));
    switch (kind) {
      case "K":
        return BatchClaimResult.of(
            r,
            new ClaimResult.Claimed(
                token,
                instant(answer.get(1)),
                "1".equals(text(answer.get(2))),
                Math.toIntExact((Long) answer.get(3)),
                Math.toIntExact((Long) answer.get(4))));
      case "C":
        return BatchClaimResult.of(
            r, new ClaimResult.Completed(config.codec().decode((byte[]) answer.get(1))));
      case "P":
        return BatchClaimResult.of(r, new ClaimResult.InProgress(instant(answer.get(1))));
      case "R":
        return BatchClaimResult.failed(
            r,
            new IdempotencyKeyReuseException(
                "key '" + r.key() + "' was claimed before with a different payload fingerprint"));
      default:
        throw new IllegalStateException(
            "unexpected claim answer " + kind + " for key '" + r.key() + "'");
    }
  }

  @Override
  public void complete(String key, ClaimToken token, Outcome outcome, Duration retention) {
    completeAll(List.of(new CompleteRequest(key, token, outcome, retention)))
        .get(0)
        .throwIfFailed();
  }

  /**
   * Completes the batch: on a single primary with native claims, natively where it can ({@link
   * RedisCompletions}), else in one script call.
   */
  @Override
  public List<BatchCompleteResult> completeAll(List<CompleteRequest> requests) {
    BatchCompleteResult[] out = new BatchCompleteResult[requests.size()];
    List<Integer> sent = new ArrayList<>(requests.size());
    List<byte[]> keys = new ArrayList<>(requests.size());
    List<byte[]> args = header(COMPLETE, 3 * requests.size());
    for (int i = 0; i < requests.size(); i++) {
      CompleteRequest r = requests.get(i);
      try {
        byte[] k = redisKey(r.key());
        byte[] encoded = config.codec().encode(r.outcome());
        keys.add(k);
        args.add(bytes(r.token().value()));
        args.add(encoded);
        args.add(number(r.retention().toMillis()));
        sent.add(i);
      } catch (InvalidIdempotencyKeyException | OutcomeTooLargeException e) {
        out[i] = BatchCompleteResult.failed(r, e);
      }
    }
    List<?> answers;
    if (sent.isEmpty()) {
      answers = List.of();
    } else if (nativeClaims && !(redis instanceof RedisClusterClient)) {
      answers =
          call(
              "complete",
              () ->
                  completions.complete(
                      keys, args, (k, a) -> runBatch("complete", COMPLETE, k, a, HEADER, 3)));
    } else {
      answers = runBatch("complete", COMPLETE, keys, args, HEADER, 3);
    }
    for (int s = 0; s < sent.size(); s++) {
      CompleteRequest r = requests.get(sent.get(s));
      out[sent.get(s)] =
          Long.valueOf(1L).equals(answers.get(s))
              ? BatchCompleteResult.done(r)
              : BatchCompleteResult.failed(r, r.token().notHeldOn(r.key()));
    }
    return List.of(out);
  }

  /**
   * Runs a batch script: {@code args} are {@code header} arguments shared by every key, then {@code
   * perKey} arguments for each key in order. On a standalone server it is one call; on a cluster
   * the keys are split by hash slot (a script may only touch keys of one slot), each group called
   * with the header and its keys' arguments, all groups in one pipeline.
   *
   * @return the answers, one per key, in the keys' order
   */
  private List<?> runBatch(
      String operation,
      RedisScript script,
      List<byte[]> keys,
      List<byte[]> args,
      int header,
      int perKey) {
    if (!(redis instanceof RedisClusterClient)) {
      return (List<?>)
          call(
              operation,
              () ->
                  config.replicaAcks() == 0
                      ? script.run(redis, keys, args)
                      : acknowledged(script, keys, args));
    }
    Map<Integer, List<Integer>> bySlot = bySlot(keys);
    List<List<byte[]>> groupKeys = new ArrayList<>(bySlot.size());
    List<List<byte[]>> groupArgs = new ArrayList<>(bySlot.size());
    for (List<Integer> group : bySlot.values()) {
      List<byte[]> k = new ArrayList<>(group.size());
      List<byte[]> a = new ArrayList<>(args.subList(0, header));
      for (int i : group) {
        k.add(keys.get(i));
        a.addAll(args.subList(header + perKey * i, header + perKey * (i + 1)));
      }
      groupKeys.add(k);
      groupArgs.add(a);
    }
    List<Object> answers =
        call(
            operation,
            () -> {
              if (config.replicaAcks() == 0) {
                return script.runGroups(redis, groupKeys, groupArgs, nodeSenders);
              }
              List<Object> acked = new ArrayList<>(groupKeys.size());
              for (int g = 0; g < groupKeys.size(); g++) {
                acked.add(acknowledged(script, groupKeys.get(g), groupArgs.get(g)));
              }
              return acked;
            });
    Object[] out = new Object[keys.size()];
    int g = 0;
    for (List<Integer> group : bySlot.values()) {
      List<?> groupAnswers = (List<?>) answers.get(g++);
      for (int j = 0; j < group.size(); j++) {
        out[group.get(j)] = groupAnswers.get(j);
      }
    }
    return Arrays.asList(out);
  }

  /**
   * Runs a script over keys of one slot on the connection to their primary and waits for {@link
   * RedisStoreConfig#replicaAcks()} replicas to acknowledge it. On a cluster whose slot moved, the
   * redirection refreshes the client's slot map (through a keyed read) and the batch fails
   * transiently, to be retried on the new primary.
   */
  private Object acknowledged(RedisScript script, List<byte[]> keys, List<byte[]> args) {
    int replicas = config.replicaAcks();
    long timeout = config.replicaAckTimeout().toMillis();
    if (!(redis instanceof RedisClusterClient cluster)) {
      return script.runAndWait(() -> (Pipeline) redis.pipelined(), keys, args, replicas, timeout);
    }
    try (Connection c = cluster.getConnectionFromSlot(JedisClusterCRC16.getSlot(keys.get(0)))) {
      return script.runAndWait(() -> new Pipeline(c), keys, args, replicas, timeout);
    } catch (JedisDataException e) {
      String msg = String.valueOf(e.getMessage());
      if (msg.startsWith("MOVED") || msg.startsWith("ASK")) {
        redis.exists(keys.get(0)); // follows the redirection: the slot map is renewed
        throw unavailable("replica-acknowledged " + script, e);
      }
      throw e;
    }
  }

  /** The positions of {@code keys} grouped by hash slot, in the order the slots first appear. */
  private static Map<Integer, List<Integer>> bySlot(List<byte[]> keys) {
    Map<Integer, List<Integer>> bySlot = new LinkedHashMap<>();
    for (int i = 0; i < keys.size(); i++) {
      bySlot.computeIfAbsent(JedisClusterCRC16.getSlot(keys.get(i)), s -> new ArrayList<>()).add(i);
    }
    return bySlot;
  }

  /** Claims and completions are single scripts over any number of keys: one round trip a batch. */
  @Override
  public boolean prefersBatches() {
    return true;
  }

  @Override
  public void fail(String key, ClaimToken token) {
    release("fail", FAIL, key, token);
  }

  @Override
  public void forget(String key, ClaimToken token) {
    release("forget", FORGET, key, token);
  }

  private void release(String operation, RedisScript script, String key, ClaimToken token) {
    byte[] k = redisKey(key);
    Objects.requireNonNull(token, "token");
    List<byte[]> args = header(script, 1);
    args.add(bytes(token.value()));
    Object done = call(operation, () -> script.run(redis, List.of(k), args));
    if (!Long.valueOf(1L).equals(done)) {
      throw token.notHeldOn(key);
    }
  }

  @Override
  public Instant renewLease(String key, ClaimToken token, Duration lease) {
    return renewAll(List.of(new RenewRequest(key, token, lease))).get(0).leaseExpiresAtOrThrow();
  }

  /** Renews the whole batch in one script call (one round trip). */
  @Override
  public List<BatchRenewResult> renewAll(List<RenewRequest> requests) {
    BatchRenewResult[] out = new BatchRenewResult[requests.size()];
    List<Integer> sent = new ArrayList<>(requests.size());
    List<byte[]> keys = new ArrayList<>(requests.size());
    List<byte[]> args = header(RENEW, 2 * requests.size());
    for (int i = 0; i < requests.size(); i++) {
      RenewRequest r = requests.get(i);
      try {
        keys.add(redisKey(r.key()));
      } catch (InvalidIdempotencyKeyException e) {
        out[i] = BatchRenewResult.failed(r, e);
        continue;
      }
      args.add(bytes(r.token().value()));
      args.add(number(r.lease().toMillis()));
      sent.add(i);
    }
    List<?> answers = sent.isEmpty() ? List.of() : runBatch("renew", RENEW, keys, args, HEADER, 2);
    for (int s = 0; s < sent.size(); s++) {
      RenewRequest r = requests.get(sent.get(s));
      Object answer = answers.get(s);
      out[sent.get(s)] =
          answer instanceof byte[]
              ? BatchRenewResult.renewed(r, instant(answer))
              : BatchRenewResult.failed(r, r.token().notHeldOn(r.key()));
    }
    return List.of(out);
  }

  @Override
  public Optional<Outcome> getResult(String key) {
    byte[] k = redisKey(key);
    Object outcome = call("get", () -> GET.run(redis, List.of(k), header(GET, 0)));
    return outcome == null
        ? Optional.empty()
        : Optional.of(config.codec().decode((byte[]) outcome));
  }

  @Override
  public Optional<StoredRecord> inspect(String key) {
    byte[] k = redisKey(key);
    Object answer = call("inspect", () -> INSPECT.run(redis, List.of(k), header(INSPECT, 0)));
    if (!(answer instanceof List<?> fields)) {
      return Optional.empty();
    }
    String state = text(fields.get(0));
    String lease = text(fields.get(2));
    String retention = text(fields.get(3));
    byte[] outcome = (byte[]) fields.get(6);
    StoredRecord.State s =
        switch (state) {
          case "p" -> StoredRecord.State.IN_PROGRESS;
          case "c" -> StoredRecord.State.COMPLETED;
          default -> StoredRecord.State.RELEASED;
        };
    String token = text(fields.get(1));
    return Optional.of(
        new StoredRecord(
            s,
            s == StoredRecord.State.IN_PROGRESS && !token.isEmpty() ? token : null,
            lease.isEmpty() ? null : instant(lease),
            retention.isEmpty() ? null : instant(retention),
            Integer.parseInt(text(fields.get(4))),
            Integer.parseInt(text(fields.get(5))),
            s == StoredRecord.State.COMPLETED
                ? Optional.of(config.codec().decode(outcome))
                : Optional.empty(),
            instant(fields.get(7))));
  }

  @Override
  public StoredRecord.Removal remove(String key) {
    byte[] k = redisKey(key);
    Object answer = call("remove", () -> REMOVE.run(redis, List.of(k), header(REMOVE, 0)));
    long n = (Long) answer;
    return n == 1
        ? StoredRecord.Removal.REMOVED
        : n == 0 ? StoredRecord.Removal.ABSENT : StoredRecord.Removal.HELD;
  }

  /**
   * Deletes every record of this store, and nothing else: not the records of a store whose prefix
   * starts with this one's ({@code app1:2:} beside {@code app1:}), which every record tells apart
   * by the prefix it keeps.
   */
  @Override
  public void clear() {
    ScanParams params =
        new ScanParams().match(bytes(globEscape(config.keyPrefix()) + "*")).count(1000);
    call(
        "clear",
        () -> {
          if (redis instanceof RedisClusterClient cluster) {
            // SCAN walks one node: every primary in turn, each page cleared slot by slot
            for (ConnectionPool node : cluster.getClusterNodes().values()) {
              try (Connection c = node.getResource()) {
                Jedis jedis = new Jedis(c);
                if (jedis.info("replication").contains("role:master")) {
                  clearPages(jedis::scan, params);
                }
              }
            }
          } else {
            clearPages(redis::scan, params);
          }
          return null;
        });
  }

  /** One page of a SCAN, from a cursor. */
  private interface Scanner {
    ScanResult<byte[]> scan(byte[] cursor, ScanParams params);
  }

  private void clearPages(Scanner scanner, ScanParams params) {
    byte[] cursor = ScanParams.SCAN_POINTER_START_BINARY;
    do {
      ScanResult<byte[]> page = scanner.scan(cursor, params);
      List<byte[]> found = page.getResult();
      if (redis instanceof RedisClusterClient) {
        List<List<byte[]>> groups = new ArrayList<>();
        for (List<Integer> group : bySlot(found).values()) {
          groups.add(group.stream().map(found::get).toList());
        }
        CLEAR.runGroups(
            redis, groups, Collections.nCopies(groups.size(), header(CLEAR, 0)), nodeSenders);
      } else if (!found.isEmpty()) {
        CLEAR.run(redis, found, header(CLEAR, 0));
      }
      cursor = page.getCursorAsBytes();
    } while (!Arrays.equals(cursor, ScanParams.SCAN_POINTER_START_BINARY));
  }

  /** Closes the connection pool. Idempotent. */
  @Override
  public void close() {
    if (closed.compareAndSet(false, true)) {
      if (nodeSenders != null) {
        nodeSenders.shutdown();
      }
      redis.close();
    }
  }

  @Override
  public String toString() {
    return "RedisIdempotencyStore[" + config + "]";
  }

  private byte[] redisKey(String key) {
    StoreKeys.requireValid(key);
    byte[] k = bytes(config.colocateSteps() ? hashTagged(key) : key);
    byte[] full = new byte[prefix.length + k.length];
    System.arraycopy(prefix, 0, full, 0, prefix.length);
    System.arraycopy(k, 0, full, prefix.length, k.length);
    return full;
  }

  /**
   * The key with its message's part in a hash tag: {@code {m}} for a message key {@code m}, {@code
   * {m}:step:...} for its step keys, so both hash to the slot of {@code m}. Injective: the tag's
   * braces go at the start and before the first step separator, whatever the key contains.
   */
  static String hashTagged(String key) {
    int step = key.indexOf(IdempotencyKeys.STEP_SEPARATOR);
    return step < 0 ? "{" + key + "}" : "{" + key.substring(0, step) + "}" + key.substring(step);
  }

  /**
   * The arguments every operation of store.lua starts with, in a list with room for {@code more}.
   */
  private List<byte[]> header(RedisScript operation, int more) {
    List<byte[]> args = new ArrayList<>(HEADER + more);
    args.add(operation.operation());
    args.add(now());
    args.add(grace);
    args.add(prefix);
    args.add(format);
    return args;
  }

  private byte[] now() {
    return config.clock() == null ? SERVER_CLOCK : number(config.clock().millis());
  }

  private <T> T call(String operation, Supplier<T> body) {
    if (closed.get()) {
      throw new IllegalStateException("the Redis idempotency store is closed");
    }
    try {
      return body.get();
    } catch (JedisAccessControlException e) {
      throw credentialsRejected(e);
    } catch (JedisConnectionException e) {
      if (e.getCause() instanceof JedisAccessControlException denied) {
        throw credentialsRejected(denied);
      }
      throw unavailable(operation, e);
    } catch (JedisDataException e) {
      String msg = String.valueOf(e.getMessage());
      if (msg.startsWith("NOAUTH") || msg.startsWith("WRONGPASS")) {
        throw credentialsRejected(e);
      }
      if (msg.startsWith("LOADING")
          || msg.startsWith("BUSY")
          || msg.startsWith("TRYAGAIN")
          || msg.startsWith("READONLY")
          || msg.startsWith("MASTERDOWN")
          || msg.startsWith("CLUSTERDOWN")) {
        throw unavailable(operation, e);
      }
      throw new IllegalStateException("Redis rejected the " + operation + " script: " + msg, e);
    } catch (JedisException e) {
      throw unavailable(operation, e);
    }
  }

  private SigloConfigurationException credentialsRejected(JedisDataException e) {
    String where = "Redis at " + config.host() + ":" + config.port();
    if (config.password() == null) {
      return new SigloConfigurationException(
          where + " requires a password and none was configured");
    }
    return new SigloConfigurationException(
        where
            + " rejected the credentials of user '"
            + (config.user() == null ? "default" : config.user())
            + "' ("
            + firstWord(e.getMessage())
            + ")");
  }

  private IdempotencyStoreUnavailableException unavailable(String operation, Exception cause) {
    return new IdempotencyStoreUnavailableException(
        "Redis at "
            + config.host()
            + ":"
            + config.port()
            + " unavailable during "
            + operation
            + ": "
            + cause.getMessage(),
        cause);
  }

  private static String firstWord(String message) {
    if (message == null) {
      return "rejected";
    }
    int space = message.indexOf(' ');
    return space < 0 ? message : message.substring(0, space);
  }

  private static String globEscape(String s) {
    StringBuilder sb = new StringBuilder(s.length() + 4);
    for (char c : s.toCharArray()) {
      if (c == '*' || c == '?' || c == '[' || c == ']' || c == '\\') {
        sb.append('\\');
      }
      sb.append(c);
    }
    return sb.toString();
  }

  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  private static byte[] number(long n) {
    return Long.toString(n).getBytes(StandardCharsets.US_ASCII);
  }

  private static String text(Object o) {
    return o instanceof byte[] b ? new String(b, StandardCharsets.UTF_8) : String.valueOf(o);
  }

  private static Instant instant(Object millis) {
    return Instant.ofEpochMilli(Long.parseLong(text(millis)));
  }
}
