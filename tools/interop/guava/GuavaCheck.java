// The bloomkit -> Guava check of tools/interop/generate: reads every Guava filter bloomkit wrote
// (tools/interop/bloomkit_writer.cpp) with the real BloomFilter.readFrom, and requires that
// mightContain answers every probe key as bloomkit did, that the strategy is the one bloomkit
// named, and that writeTo gives back bloomkit's bytes exactly.
//
// Usage: java -cp guava.jar:. GuavaCheck DIR
import com.google.common.hash.BloomFilter;
import com.google.common.hash.Funnel;
import com.google.common.hash.Funnels;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.Arrays;
import java.util.List;

public final class GuavaCheck {
  public static void main(String[] args) throws Exception {
    File dir = new File(args[0]);
    File[] vectors = dir.listFiles((d, name) -> name.startsWith("guava_") && name.endsWith(".txt"));
    Arrays.sort(vectors);
    int filters = 0;
    long probes = 0;
    int failures = 0;
    for (File vector : vectors) {
      List<String> lines = Files.readAllLines(vector.toPath(), StandardCharsets.UTF_8);
      String scheme = null;
      String keyType = "string";
      String file = null;
      for (String line : lines) {
        String[] f = line.split(" ", -1);
        if (f[0].equals("scheme")) scheme = f[1];
        if (f[0].equals("key_type")) keyType = f[1];
        if (f[0].equals("file")) file = f[1];
      }
      boolean isLong = keyType.equals("long");
      @SuppressWarnings("unchecked")
      Funnel<Object> funnel =
          (Funnel<Object>) (isLong ? Funnels.longFunnel() : Funnels.stringFunnel(StandardCharsets.UTF_8));
      byte[] bytes = Files.readAllBytes(new File(dir, file).toPath());
      BloomFilter<Object> filter = BloomFilter.readFrom(new ByteArrayInputStream(bytes), funnel);
      ByteArrayOutputStream again = new ByteArrayOutputStream();
      filter.writeTo(again);
      int ordinal = scheme.endsWith("mitz_32") ? 0 : 1;
      if (!Arrays.equals(again.toByteArray(), bytes) || again.toByteArray()[0] != ordinal) {
        System.out.println("guava: " + file + ": writeTo does not give back bloomkit's bytes");
        failures++;
      }
      for (String line : lines) {
        String[] f = line.split(" ", -1);
        if (!f[0].equals("probe")) continue;
        Object key = isLong ? (Object) Long.parseLong(f[1]) : new String(unhex(f[1]), StandardCharsets.UTF_8);
        boolean expected = f[2].equals("1");
        if (filter.mightContain(key) != expected) {
          System.out.println("guava: " + file + ": key " + f[1] + ": Guava says " + !expected);
          failures++;
        }
        probes++;
      }
      filters++;
    }
    System.out.println("guava: read " + filters + " bloomkit filters (readFrom), " + probes
        + " probes, " + failures + " differences");
    if (failures > 0 || filters == 0) System.exit(1);
  }

  static byte[] unhex(String s) {
    byte[] out = new byte[s.length() / 2];
    for (int i = 0; i < out.length; i++) out[i] = (byte) Integer.parseInt(s.substring(2 * i, 2 * i + 2), 16);
    return out;
  }
}
