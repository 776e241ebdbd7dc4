// The Java peer harness of bench/compare_peers: Guava's BloomFilter on String keys, as Java users build
// it, measured as bench/peers/README.md (the harness protocol) says.
//
//   guava-harness guava --keys KEYS --misses MISSES --n N --queries Q --p P
//
// Prints one line of JSON on stdout; everything else goes to stderr.

import com.google.common.hash.BloomFilter;
import com.google.common.hash.Funnels;
import java.io.BufferedReader;
import java.io.DataInputStream;
import java.io.FileInputStream;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;

public final class GuavaHarness {
  static final int CHUNK_KEYS = 65536; // keys read (untimed), then run through the filter (timed)
  static final long WARMUP_KEYS = 1L << 20; // cap on the untimed warm-up's inserts and queries
  static final int READ_BUFFER = 1 << 20;
  static final String USAGE =
      "usage: guava-harness guava --keys KEYS --misses MISSES --n N --queries Q --p P";

  /** A bad input; the message names it. */
  static final class HarnessError extends Exception {
    final int status;

    HarnessError(String message, int status) {
      super(message);
      this.status = status;
    }
  }

  static final class Args {
    String keys;
    String misses;
    long n;
    long queries;
    double p;
  }

  /** What a chunk loop does with a chunk; returns the number of keys answered present. */
  interface ChunkLoop {
    long run(BloomFilter<CharSequence> filter, String[] keys, int count);
  }

  // The timed loops: plain static methods over an array, so the JIT compiles them once, and a
  // result each (put's return value, mightContain's count) so it cannot drop the calls.
  static long insertChunk(BloomFilter<CharSequence> filter, String[] keys, int count) {
    long changed = 0;
    for (int i = 0; i < count; i++) {
      if (filter.put(keys[i])) {
        changed++;
      }
    }
    return changed;
  }

  static long queryChunk(BloomFilter<CharSequence> filter, String[] keys, int count) {
    long present = 0;
    for (int i = 0; i < count; i++) {
      if (filter.mightContain(keys[i])) {
        present++;
      }
    }
    return present;
  }

  /** Total nanoseconds inside loop and the sum of its results over the first count lines. */
  static final class Pass {
    long nanos;
    long result;
  }

  static Pass forEachChunk(String path, long count, BloomFilter<CharSequence> filter,
      ChunkLoop loop) throws HarnessError {
    Pass pass = new Pass();
    String[] keys = new String[CHUNK_KEYS];
    long read = 0;
    try (BufferedReader in = new BufferedReader(
             new InputStreamReader(new FileInputStream(path), StandardCharsets.UTF_8),
             READ_BUFFER)) {
      while (read < count) {
        int want = (int) Math.min(CHUNK_KEYS, count - read);
        for (int i = 0; i < want; i++) {
          String line = in.readLine();
          if (line == null) {
            throw new HarnessError(
                path + ": has only " + (read + i) + " lines, " + count + " needed", 1);
          }
          keys[i] = line;
        }
        long start = System.nanoTime();
        pass.result += loop.run(filter, keys, want);
        pass.nanos += System.nanoTime() - start;
        read += want;
      }
    } catch (FileNotFoundException e) {
      throw new HarnessError("cannot open " + e.getMessage(), 1); // names the file
    } catch (IOException e) {
      throw new HarnessError(path + ": " + e.getMessage(), 1);
    }
    return pass;
  }

  static BloomFilter<CharSequence> create(long n, double p) {
    return BloomFilter.create(Funnels.stringFunnel(StandardCharsets.UTF_8), n, p);
  }

  /** Keeps the first bytes written and counts the rest, to read writeTo's header cheaply. */
  static final class HeaderSink extends OutputStream {
    final byte[] header = new byte[6];
    long written;

    @Override
    public void write(int b) {
      if (written < header.length) {
        header[(int) written] = (byte) b;
      }
      written++;
    }

    @Override
    public void write(byte[] b, int off, int len) {
      for (int i = 0; i < len && written + i < header.length; i++) {
        header[(int) written + i] = b[off + i];
      }
      written += len;
    }
  }

  /**
   * Guava exposes neither k nor the bit array's size; its serial form does: a strategy byte, k as
   * an unsigned byte, the number of 64-bit words as a big-endian int, then the words.
   * Returns {filter bytes, k}.
   */
  static long[] filterShape(BloomFilter<CharSequence> filter) throws HarnessError {
    HeaderSink sink = new HeaderSink();
    try {
      filter.writeTo(sink);
      DataInputStream header = new DataInputStream(new java.io.ByteArrayInputStream(sink.header));
      header.readByte();
      int k = header.readUnsignedByte();
      long words = Integer.toUnsignedLong(header.readInt());
      if (sink.written != 6 + words * 8) {
        throw new HarnessError("Guava's serial form is not the documented one: header says " + words
                + " words, stream has " + sink.written + " bytes",
            1);
      }
      return new long[] {words * 8, k};
    } catch (IOException e) {
      throw new HarnessError("cannot serialize the filter: " + e.getMessage(), 1);
    }
  }

  static long parseCount(String flag, String value) throws HarnessError {
    try {
      long v = Long.parseLong(value);
      if (v > 0) {
        return v;
      }
    } catch (NumberFormatException e) {
      // reported below
    }
    throw new HarnessError(flag + " must be a positive integer, got '" + value + "'\n" + USAGE, 2);
  }

  static Args parseArgs(String[] argv) throws HarnessError {
    if (argv.length < 1 || argv[0].startsWith("-")) {
      throw new HarnessError("missing implementation name\n" + USAGE, 2);
    }
    if (!argv[0].equals("guava")) {
      throw new HarnessError(
          "unknown implementation '" + argv[0] + "' (known: guava)\n" + USAGE, 2);
    }
    Args a = new Args();
    boolean haveN = false;
    boolean haveQ = false;
    boolean haveP = false;
    for (int i = 1; i < argv.length; i += 2) {
      String flag = argv[i];
      if (i + 1 >= argv.length) {
        throw new HarnessError(flag + " needs a value\n" + USAGE, 2);
      }
      String value = argv[i + 1];
      switch (flag) {
        case "--keys":
          a.keys = value;
          break;
        case "--misses":
          a.misses = value;
          break;
        case "--n":
          a.n = parseCount(flag, value);
          haveN = true;
          break;
        case "--queries":
          a.queries = parseCount(flag, value);
          haveQ = true;
          break;
        case "--p":
          try {
            a.p = Double.parseDouble(value);
          } catch (NumberFormatException e) {
            a.p = Double.NaN;
          }
          if (!(a.p > 0 && a.p < 1)) {
            throw new HarnessError("--p must be in (0, 1), got '" + value + "'\n" + USAGE, 2);
          }
          haveP = true;
          break;
        default:
          throw new HarnessError("unknown argument '" + flag + "'\n" + USAGE, 2);
      }
    }
    if (a.keys == null || a.misses == null || !haveN || !haveQ || !haveP) {
      throw new HarnessError("--keys, --misses, --n, --queries and --p are required\n" + USAGE, 2);
    }
    return a;
  }

  static String library() {
    return "Guava " + System.getProperty("bloomkit.guava.version", "unknown");
  }

  static void run(String[] argv) throws HarnessError {
    Args a = parseArgs(argv);

    // Warm-up, untimed: the same loops on a scratch filter, so nothing timed runs interpreted.
    {
      long warmKeys = Math.min(a.n, WARMUP_KEYS);
      BloomFilter<CharSequence> warm = create(warmKeys, a.p);
      forEachChunk(a.keys, warmKeys, warm, GuavaHarness::insertChunk);
      forEachChunk(a.misses, Math.min(a.queries, WARMUP_KEYS), warm, GuavaHarness::queryChunk);
    }
    System.gc();

    BloomFilter<CharSequence> filter = create(a.n, a.p);
    Pass insert = forEachChunk(a.keys, a.n, filter, GuavaHarness::insertChunk);
    long hits = Math.min(a.n, a.queries);
    Pass hit = forEachChunk(a.keys, hits, filter, GuavaHarness::queryChunk);
    Pass miss = forEachChunk(a.misses, a.queries, filter, GuavaHarness::queryChunk);
    long[] shape = filterShape(filter);

    long falseNegatives = hits - hit.result;
    StringBuilder json = new StringBuilder();
    json.append("{\"impl\": \"guava\", \"language\": \"Java\", \"library\": \"")
        .append(library())
        .append("\", \"n\": ")
        .append(a.n)
        .append(", \"queries\": ")
        .append(a.queries)
        .append(", \"p\": ")
        .append(a.p)
        .append(", \"insert_ns\": ")
        .append((double) insert.nanos / a.n)
        .append(", \"hit_ns\": ")
        .append((double) hit.nanos / hits)
        .append(", \"miss_ns\": ")
        .append((double) miss.nanos / a.queries)
        .append(", \"fpp\": ")
        .append((double) miss.result / a.queries)
        .append(", \"false_negatives\": ")
        .append(falseNegatives)
        .append(", \"false_positives\": ")
        .append(miss.result)
        .append(", \"filter_bytes\": ")
        .append(shape[0])
        .append(", \"hashes\": ")
        .append(shape[1])
        .append(", \"bits_per_key\": ")
        .append((double) shape[0] * 8 / a.n)
        .append("}");
    System.out.println(json);
    if (falseNegatives != 0) {
      throw new HarnessError(
          "guava: " + falseNegatives + " false negatives in " + hits + " hits", 1);
    }
  }

  public static void main(String[] argv) {
    try {
      run(argv);
    } catch (HarnessError e) {
      System.out.flush();
      System.err.println("guava-harness: error: " + e.getMessage());
      System.exit(e.status);
    }
  }
}
