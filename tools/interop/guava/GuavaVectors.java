// Writes interop test vectors with the real Guava (Debian's libguava-java): for each strategy,
// key type and (expected insertions, fpp), the BloomFilter.writeTo stream of a filled filter, the
// keys it holds, probe keys with Guava's mightContain answers, and the bit positions of a few
// keys (read off the stream of a filter holding that key alone). Also Guava's own sizing
// (optimalNumOfBits / optimalNumOfHashFunctions) for many (n, p).
//
// MURMUR128_MITZ_32 through the public API: BloomFilter.create() always uses MITZ_64, but
// BloomFilter.readFrom() takes the strategy from the stream's first byte (its ordinal). So we
// create a MITZ_64 filter of the wanted size, write it, set that byte to 0 (MITZ_32) and read it
// back: an empty MITZ_32 filter of the same bits and hashes, filled through put() as usual.
//
// Usage: java -cp guava.jar:. GuavaVectors OUTDIR
import com.google.common.hash.BloomFilter;
import com.google.common.hash.Funnel;
import com.google.common.hash.Funnels;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.PrintWriter;
import java.lang.reflect.Method;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;

public final class GuavaVectors {
  static final Funnel<CharSequence> STRING = Funnels.stringFunnel(StandardCharsets.UTF_8);
  static final Funnel<Long> LONG = Funnels.longFunnel();

  public static void main(String[] args) throws Exception {
    File dir = new File(args[0]);
    dir.mkdirs();
    writeSizing(new File(dir, "guava_sizing.txt"));
    long[] ns = {100, 1000, 300};
    double[] ps = {0.03, 0.01, 0.001};
    int written = 0;
    for (int strategy = 0; strategy < 2; strategy++) {
      for (String keyType : new String[] {"string", "long"}) {
        for (int c = 0; c < ns.length; c++) {
          writeCase(dir, strategy, keyType, ns[c], ps[c]);
          written++;
        }
      }
    }
    System.out.println("guava: wrote " + written + " filters and the sizing table to " + dir);
  }

  static String strategyName(int ordinal) {
    return ordinal == 0 ? "mitz32" : "mitz64";
  }

  // Keys the filters hold: ASCII, Cyrillic, CJK, a supplementary-plane emoji (4 UTF-8 bytes,
  // a surrogate pair in Java) and the empty string.
  static List<String> stringKeys(String prefix, int count) {
    String[] stems = {"key-", "ключ-", "鍵-", "\uD83D\uDD11-", "k"};
    List<String> keys = new ArrayList<>();
    if (prefix.isEmpty()) keys.add("");
    for (int i = 0; keys.size() < count; i++) keys.add(prefix + stems[i % stems.length] + i);
    return keys;
  }

  // Signed 64-bit keys: both signs, the extremes, and spread-out values.
  static List<Long> longKeys(long salt, int count) {
    List<Long> keys = new ArrayList<>();
    if (salt == 0) {
      for (long v : new long[] {0L, -1L, 1L, Long.MIN_VALUE, Long.MAX_VALUE}) keys.add(v);
    }
    long x = 0x9E3779B97F4A7C15L ^ salt;
    while (keys.size() < count) {
      x = x * 6364136223846793005L + 1442695040888963407L;
      keys.add(keys.size() % 3 == 0 ? -(x >>> 20) : (x >> 7));
    }
    return keys;
  }

  static String hex(byte[] b) {
    StringBuilder s = new StringBuilder();
    for (byte x : b) s.append(String.format("%02x", x & 0xff));
    return s.toString();
  }

  static String keyText(Object key) {
    if (key instanceof String) return hex(((String) key).getBytes(StandardCharsets.UTF_8));
    return key.toString();
  }

  @SuppressWarnings("unchecked")
  static <T> BloomFilter<T> newFilter(Funnel<? super T> funnel, int strategy, long n, double p)
      throws IOException {
    BloomFilter<T> f = BloomFilter.create(funnel, n, p);
    if (strategy == 1) return f;
    byte[] stream = serialize(f);
    if (stream[0] != 1) throw new IllegalStateException("create() did not use MITZ_64");
    stream[0] = 0;
    return (BloomFilter<T>) BloomFilter.readFrom(new ByteArrayInputStream(stream), funnel);
  }

  static byte[] serialize(BloomFilter<?> f) throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    f.writeTo(out);
    return out.toByteArray();
  }

  // Bit indices set in a writeTo stream (bit i is bit i % 64 of big-endian long i / 64).
  static TreeSet<Long> setBits(byte[] stream) {
    TreeSet<Long> bits = new TreeSet<>();
    for (int w = 0; 6 + 8 * w < stream.length; w++) {
      for (int b = 0; b < 64; b++) {
        int byteIndex = 6 + 8 * w + 7 - b / 8;
        if (((stream[byteIndex] >> (b % 8)) & 1) != 0) bits.add(64L * w + b);
      }
    }
    return bits;
  }

  @SuppressWarnings("unchecked")
  static void writeCase(File dir, int strategy, String keyType, long n, double p)
      throws IOException {
    boolean isString = keyType.equals("string");
    Funnel<Object> funnel = (Funnel<Object>) (Funnel<?>) (isString ? STRING : LONG);
    List<Object> inserted = new ArrayList<>(isString ? stringKeys("", (int) n) : longKeys(0, (int) n));
    List<Object> absent =
        new ArrayList<>(isString ? stringKeys("probe-", 600) : longKeys(0x5EED, 600));
    String name = String.format("guava_%s_%s_n%d_p%s", strategyName(strategy), keyType, n, p);
    BloomFilter<Object> f = newFilter(funnel, strategy, n, p);
    for (Object k : inserted) f.put(k);
    byte[] stream = serialize(f);
    if (stream[0] != strategy) throw new IllegalStateException("strategy byte " + stream[0]);
    try (FileOutputStream out = new FileOutputStream(new File(dir, name + ".bin"))) {
      out.write(stream);
    }
    try (PrintWriter w = new PrintWriter(new File(dir, name + ".txt"), StandardCharsets.UTF_8)) {
      w.println("# Guava 31.1 BloomFilter, tools/interop/guava/GuavaVectors.java");
      w.println("scheme guava_" + (strategy == 0 ? "murmur128_mitz_32" : "murmur128_mitz_64"));
      w.println("key_type " + keyType);
      w.println("expected_insertions " + n);
      w.println("fpp " + p);
      w.println("bits " + (stream.length - 6) / 8 * 64);
      w.println("hashes " + (stream[1] & 0xff));
      w.println("file " + name + ".bin");
      for (Object k : inserted) w.println("insert " + keyText(k));
      // Every inserted key and 600 others, with Guava's answer.
      for (Object k : inserted) w.println("probe " + keyText(k) + " " + (f.mightContain(k) ? 1 : 0));
      for (Object k : absent) w.println("probe " + keyText(k) + " " + (f.mightContain(k) ? 1 : 0));
      // Positions of some keys: the bits a filter of the same size holding only that key has.
      for (int i = 0; i < 12; i++) {
        Object k = i < 6 ? inserted.get(i) : absent.get(i);
        BloomFilter<Object> one = newFilter(funnel, strategy, n, p);
        one.put(k);
        StringBuilder s = new StringBuilder();
        for (long bit : setBits(serialize(one))) s.append(s.length() == 0 ? "" : ",").append(bit);
        w.println("positions " + keyText(k) + " " + s);
      }
    }
  }

  interface BitsFormula {
    long bits(long n, double p) throws Exception;
  }
  interface HashesFormula {
    int hashes(long n, long bits) throws Exception;
  }

  // The "n p bits hashes" rows of a sizing table over the usual fpps; a size of 0 bits or less
  // (which the peer rejects or divides by) is left out.
  static void writeSizingRows(PrintWriter w, long[] ns, BitsFormula bits, HashesFormula hashes)
      throws Exception {
    double[] ps = {0.5, 0.3, 0.1, 0.05, 0.03, 0.01, 0.001, 1e-4, 1e-6, 1e-9, 0.999};
    for (long n : ns) {
      for (double p : ps) {
        long m = bits.bits(n, p);
        if (m <= 0) continue;
        w.println(n + " " + p + " " + m + " " + hashes.hashes(n, m));
      }
    }
  }

  // Guava's own sizing, called through reflection (the methods are package-private): the bits
  // before rounding up to whole longs, and the hash count.
  static void writeSizing(File file) throws Exception {
    Method bits = BloomFilter.class.getDeclaredMethod("optimalNumOfBits", long.class, double.class);
    Method hashes =
        BloomFilter.class.getDeclaredMethod("optimalNumOfHashFunctions", long.class, long.class);
    bits.setAccessible(true);
    hashes.setAccessible(true);
    long[] ns = {1, 2, 3, 7, 10, 100, 1000, 1234, 10000, 65536, 100000, 1000000, 12345678,
                 1000000000L, 5000000000L};
    try (PrintWriter w = new PrintWriter(file, StandardCharsets.UTF_8)) {
      w.println("# Guava 31.1 optimalNumOfBits(n, p) and optimalNumOfHashFunctions(n, m)");
      w.println("# n p bits hashes  (the filter holds bits rounded up to a multiple of 64)");
      writeSizingRows(w, ns, (n, p) -> (long) bits.invoke(null, n, p),
                      (n, m) -> (int) hashes.invoke(null, n, m));  // m <= 0: create() rejects
      // create() with 0 expected insertions sizes for 1.
      BloomFilter<CharSequence> zero = BloomFilter.create(STRING, 0, 0.01);
      byte[] s = serialize(zero);
      w.println("# create(funnel, 0, 0.01): bits " + (s.length - 6) / 8 * 64 + " hashes " + s[1]);
    }
  }
}
