// Writes interop test vectors for the Guava-based Redis helper (BloomFilterHelper.java) with the
// real Guava, running the helper's own loops against a real redis-server: one SETBIT round trip
// per offset to add a key, one GETBIT per offset (stopping at the first 0) to look one up. Java
// has no Redis client in Debian, so RespConnection below speaks RESP over a socket, one command
// and one reply at a time, as a Redis template's setBit / getBit do.
//
// For each funnel (putString UTF-8; putString twice; putLong) and (expectedInsertions, fpp):
// the Redis string the loop leaves (GET), the keys, the loop's SETBIT offsets of every key in
// order (what a replay of the helper's writes sends), and probe keys with the helper's answers.
// Also the helper's sizing for many (n, p).
//
// Usage: java -cp guava.jar:. GuavaHelperVectors OUTDIR REDIS_PORT
import com.google.common.hash.Funnel;
import com.google.common.hash.Funnels;
import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintWriter;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

public final class GuavaHelperVectors {
  static final String KEY = "bloomkit:interop:guava-helper";

  // A string funnel that hashes the string twice: a widely copied configuration.
  static final Funnel<CharSequence> STRING_TWICE =
      (from, into) -> into.putString(from, StandardCharsets.UTF_8).putString(from, StandardCharsets.UTF_8);

  public static void main(String[] args) throws Exception {
    File dir = new File(args[0]);
    dir.mkdirs();
    writeSizing(new File(dir, "guava_helper_sizing.txt"));
    long[] ns = {200, 1000};
    double[] ps = {0.01, 0.001};
    int written = 0;
    try (RespConnection redis = new RespConnection("127.0.0.1", Integer.parseInt(args[1]))) {
      for (String funnel : new String[] {"string", "string_twice", "long"}) {
        for (int c = 0; c < ns.length; c++) {
          writeCase(redis, dir, funnel, (int) ns[c], ps[c]);
          written++;
        }
      }
      redis.call("DEL", KEY);
    }
    System.out.println("guava helper: wrote " + written + " filters and the sizing table to " + dir);
  }

  // GuavaVectors' keys (ASCII, Cyrillic, CJK, a 4-byte emoji, the empty string), plus a
  // 1000-character key.
  static List<String> stringKeys(String prefix, int count) {
    if (!prefix.isEmpty()) return GuavaVectors.stringKeys(prefix, count);
    List<String> keys = GuavaVectors.stringKeys(prefix, count - 1);
    keys.add(1, "long-" + "x".repeat(995));
    return keys;
  }

  // The helper's add: one SETBIT round trip per offset.
  static <T> void add(RespConnection redis, BloomFilterHelper<T> helper, T value) throws IOException {
    for (int offset : helper.murmurHashOffset(value)) {
      redis.call("SETBIT", KEY, Integer.toString(offset), "1");
    }
  }

  // The helper's lookup: GETBIT per offset, false at the first 0.
  static <T> boolean includes(RespConnection redis, BloomFilterHelper<T> helper, T value)
      throws IOException {
    for (int offset : helper.murmurHashOffset(value)) {
      if ((Long) redis.call("GETBIT", KEY, Integer.toString(offset)) == 0) return false;
    }
    return true;
  }

  static String join(int[] values) {
    StringBuilder s = new StringBuilder();
    for (int v : values) s.append(s.length() == 0 ? "" : ",").append(v);
    return s.toString();
  }

  @SuppressWarnings("unchecked")
  static void writeCase(RespConnection redis, File dir, String funnelName, int n, double p)
      throws IOException {
    boolean isLong = funnelName.equals("long");
    Funnel<Object> funnel =
        (Funnel<Object>)
            (Funnel<?>)
                (isLong
                    ? Funnels.longFunnel()
                    : funnelName.equals("string")
                        ? Funnels.stringFunnel(StandardCharsets.UTF_8)
                        : STRING_TWICE);
    List<Object> inserted = new ArrayList<>(isLong ? GuavaVectors.longKeys(0, n) : stringKeys("", n));
    List<Object> absent = new ArrayList<>(isLong ? GuavaVectors.longKeys(0x5EED, 500) : stringKeys("probe-", 500));
    BloomFilterHelper<Object> helper = new BloomFilterHelper<>(funnel, n, p);
    String name = String.format("guava_helper_%s_n%d_p%s", funnelName, n, p);
    redis.call("DEL", KEY);
    for (Object k : inserted) add(redis, helper, k);
    byte[] bytes = (byte[]) redis.call("GET", KEY);
    try (FileOutputStream out = new FileOutputStream(new File(dir, name + ".redis"))) {
      out.write(bytes);
    }
    try (PrintWriter w = new PrintWriter(new File(dir, name + ".txt"), StandardCharsets.UTF_8)) {
      w.println("# Guava-based Redis helper (BloomFilterHelper) over Guava 31.1, its SETBIT / GETBIT");
      w.println("# loops run against redis-server: tools/interop/guava/GuavaHelperVectors.java");
      w.println("scheme guava_helper");
      w.println("funnel " + funnelName.replace('_', '-'));
      w.println("key_type " + (isLong ? "long" : "string"));
      w.println("expected_insertions " + n);
      w.println("fpp " + p);
      w.println("bits " + helper.bitSize());
      w.println("hashes " + helper.numHashFunctions());
      w.println("file " + name + ".redis");
      for (Object k : inserted) w.println("insert " + GuavaVectors.keyText(k));
      for (Object k : inserted) w.println("probe " + GuavaVectors.keyText(k) + " " + (includes(redis, helper, k) ? 1 : 0));
      for (Object k : absent) w.println("probe " + GuavaVectors.keyText(k) + " " + (includes(redis, helper, k) ? 1 : 0));
      // The SETBIT offsets the helper's add sent, in order: every inserted key, and a few probes.
      for (Object k : inserted) w.println("locations " + GuavaVectors.keyText(k) + " " + join(helper.murmurHashOffset(k)));
      for (int i = 0; i < 6; i++) {
        Object k = absent.get(i);
        w.println("locations " + GuavaVectors.keyText(k) + " " + join(helper.murmurHashOffset(k)));
      }
    }
  }

  // The helper's sizing (optimalNumOfBits, optimalNumOfHashFunctions) for many (n, p), including
  // sizes past Integer.MAX_VALUE, where Java's (int) cast saturates.
  static void writeSizing(File file) throws Exception {
    long[] ns = {1, 2, 3, 7, 10, 100, 1000, 1234, 10000, 65536, 100000, 1000000, 12345678,
                 100000000, 1000000000, 2147483647};
    try (PrintWriter w = new PrintWriter(file, StandardCharsets.UTF_8)) {
      w.println("# BloomFilterHelper.optimalNumOfBits(n, p) and optimalNumOfHashFunctions(n, bits)");
      w.println("# n p bits hashes  (bitSize is an int: (int) saturates at 2147483647)");
      // m <= 0: the helper would divide by zero.
      GuavaVectors.writeSizingRows(w, ns, BloomFilterHelper::optimalNumOfBits,
                                   BloomFilterHelper::optimalNumOfHashFunctions);
    }
  }

  // One RESP connection: a command out, its reply back (Long, byte[], String or null).
  static final class RespConnection implements AutoCloseable {
    private final Socket socket;
    private final OutputStream out;
    private final InputStream in;

    RespConnection(String host, int port) throws IOException {
      socket = new Socket(host, port);
      socket.setTcpNoDelay(true);
      out = socket.getOutputStream();
      in = new BufferedInputStream(socket.getInputStream());
    }

    Object call(String... args) throws IOException {
      ByteArrayOutputStream b = new ByteArrayOutputStream();
      b.write(("*" + args.length + "\r\n").getBytes(StandardCharsets.US_ASCII));
      for (String a : args) {
        byte[] bytes = a.getBytes(StandardCharsets.UTF_8);
        b.write(("$" + bytes.length + "\r\n").getBytes(StandardCharsets.US_ASCII));
        b.write(bytes);
        b.write("\r\n".getBytes(StandardCharsets.US_ASCII));
      }
      out.write(b.toByteArray());
      out.flush();
      return reply();
    }

    private String line() throws IOException {
      StringBuilder s = new StringBuilder();
      for (int c = in.read(); c != '\r'; c = in.read()) {
        if (c < 0) throw new IOException("connection closed");
        s.append((char) c);
      }
      in.read();  // '\n'
      return s.toString();
    }

    private Object reply() throws IOException {
      String l = line();
      switch (l.charAt(0)) {
        case ':':
          return Long.parseLong(l.substring(1));
        case '+':
          return l.substring(1);
        case '-':
          throw new IOException("redis: " + l.substring(1));
        case '$':
          int n = Integer.parseInt(l.substring(1));
          if (n < 0) return null;
          byte[] bytes = in.readNBytes(n);
          in.readNBytes(2);
          return bytes;
        default:
          throw new IOException("unexpected reply " + l);
      }
    }

    @Override
    public void close() throws IOException {
      socket.close();
    }
  }
}
