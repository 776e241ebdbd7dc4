// The Guava-based Redis Bloom filter helper that Java (Spring) services share a filter with: the
// "BloomFilterHelper" pattern of many tutorials, written here from its published algorithm
// (docs/INTEROP.md, "The Guava-based Redis helper") so that the vectors come from the real Guava
// (Debian's libguava-java) running exactly that arithmetic. The services pair it with a Redis
// template that runs one SETBIT per offset (add) and one GETBIT per offset (lookup) on one Redis
// string; GuavaHelperVectors does the same against a real redis-server.
import com.google.common.base.Preconditions;
import com.google.common.hash.Funnel;
import com.google.common.hash.Hashing;

public final class BloomFilterHelper<T> {
  private final Funnel<T> funnel;
  private final int bitSize;
  private final int numHashFunctions;

  public BloomFilterHelper(Funnel<T> funnel, int expectedInsertions, double fpp) {
    Preconditions.checkArgument(funnel != null, "funnel must not be null");
    this.funnel = funnel;
    bitSize = optimalNumOfBits(expectedInsertions, fpp);
    numHashFunctions = optimalNumOfHashFunctions(expectedInsertions, bitSize);
  }

  public int bitSize() {
    return bitSize;
  }

  public int numHashFunctions() {
    return numHashFunctions;
  }

  // The SETBIT / GETBIT offsets of a value: Guava's 32-bit double hashing over murmur3_128's
  // asLong(), modulo the helper's own bitSize.
  public int[] murmurHashOffset(T value) {
    int[] offset = new int[numHashFunctions];
    long hash64 = Hashing.murmur3_128().hashObject(value, funnel).asLong();
    int hash1 = (int) hash64;
    int hash2 = (int) (hash64 >>> 32);
    for (int i = 1; i <= numHashFunctions; i++) {
      int nextHash = hash1 + i * hash2;
      if (nextHash < 0) {
        nextHash = ~nextHash;
      }
      offset[i - 1] = nextHash % bitSize;
    }
    return offset;
  }

  // Truncated, and not rounded up to 64 as Guava's own BloomFilter rounds it.
  static int optimalNumOfBits(long n, double p) {
    if (p == 0) {
      p = Double.MIN_VALUE;
    }
    return (int) (-n * Math.log(p) / (Math.log(2) * Math.log(2)));
  }

  static int optimalNumOfHashFunctions(long n, long m) {
    return Math.max(1, (int) Math.round((double) m / n * Math.log(2)));
  }
}
