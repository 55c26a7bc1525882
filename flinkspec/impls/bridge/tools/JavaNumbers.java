import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import java.util.Locale;

/**
 * The JDK's number parsing and printing, one question a line, for flinkspec.impls.javanumbers.
 *
 * <p>In: {@code OP<TAB>ARG}, ARG as hex of its UTF-8 bytes. Out, one line each:
 * {@code ok<TAB>HEX(result)} or {@code err<TAB>ExceptionSimpleName<TAB>HEX(message)}.
 * Doubles travel as the decimal of {@code Double.doubleToRawLongBits}.
 */
public final class JavaNumbers {
    private static final HexFormat HEX = HexFormat.of();

    private static String answer(String op, String arg) {
        switch (op) {
            case "parseDouble":
                return Long.toString(Double.doubleToRawLongBits(Double.parseDouble(arg)));
            case "parseFloat":
                return Long.toString(Double.doubleToRawLongBits((double) Float.parseFloat(arg)));
            case "parseInt":
                return Integer.toString(Integer.parseInt(arg));
            case "parseLong":
                return Long.toString(Long.parseLong(arg));
            case "trim":
                return arg.trim();
            case "toString":
                return Double.toString(Double.longBitsToDouble(Long.parseLong(arg)));
            case "bigDecimal": {
                BigDecimal d = BigDecimal.valueOf(Double.longBitsToDouble(Long.parseLong(arg)));
                return d.unscaledValue() + " " + d.scale();
            }
            case "multiply": {  // MemorySize.multiply: BigDecimal.valueOf(multiplier).multiply(valueOf(bytes))
                String[] parts = arg.split(" ");
                BigDecimal product = BigDecimal.valueOf(Double.longBitsToDouble(Long.parseLong(parts[0])))
                        .multiply(BigDecimal.valueOf(Long.parseLong(parts[1])));
                int sign = product.compareTo(BigDecimal.valueOf(Long.MAX_VALUE));
                return sign > 0 ? "1" : sign + " " + product.longValue();  // above Long.MAX_VALUE Flink throws
            }
            case "doubleValue":  // CPUResource's value read back
                return Long.toString(Double.doubleToRawLongBits(
                        BigDecimal.valueOf(Double.longBitsToDouble(Long.parseLong(arg))).doubleValue()));
            case "setScaleDown": {  // CPUResource's value at a scale, rounded DOWN
                String[] parts = arg.split(" ");
                BigDecimal d = BigDecimal.valueOf(Double.longBitsToDouble(Long.parseLong(parts[0])));
                return Long.toString(Double.doubleToRawLongBits(
                        d.setScale(Integer.parseInt(parts[1]), RoundingMode.DOWN).doubleValue()));
            }
            default: {
                if (op.startsWith("format")) {  // formatN: String.format(Locale.ROOT, "%.Nf", d)
                    double d = Double.longBitsToDouble(Long.parseLong(arg));
                    return String.format(Locale.ROOT, "%." + Integer.parseInt(op.substring(6)) + "f", d);
                }
                throw new IllegalStateException("unknown op " + op);
            }
        }
    }

    public static void main(String[] args) throws Exception {
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        PrintStream out = new PrintStream(System.out, false, StandardCharsets.UTF_8);
        String line;
        while ((line = in.readLine()) != null) {
            int tab = line.indexOf('\t');
            String op = line.substring(0, tab);
            String arg = new String(HEX.parseHex(line.substring(tab + 1)), StandardCharsets.UTF_8);
            try {
                out.println("ok\t" + HEX.formatHex(answer(op, arg).getBytes(StandardCharsets.UTF_8)));
            } catch (RuntimeException e) {
                String msg = String.valueOf(e.getMessage());
                out.println("err\t" + e.getClass().getSimpleName() + "\t"
                        + HEX.formatHex(msg.getBytes(StandardCharsets.UTF_8)));
            }
        }
        out.flush();
    }
}
