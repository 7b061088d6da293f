// SPDX-License-Identifier: Apache-2.0
package dev.smelt.spark;

import dev.smelt.ir.SmeltException;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/// A graph's text with its batch size left open. A traced graph's shapes are numbers, so the
/// function is traced at two batch sizes and the texts compared: an integer that is `k·b₁` in
/// one and `k·b₂` in the other becomes the slot `$k`, which [#instantiate] fills with `k·n`.
/// Anything else that differs (a `1/b` constant of a mean over the batch, a branch on the batch
/// size) means the program depends on the batch beyond its shapes and is refused. The parser
/// checks every line's type when the text is read back, so a slot put in the wrong place cannot
/// go unnoticed.
final class BatchTemplate {
    // An integer that is not part of a node name (`%12`), a word or a decimal number.
    private static final Pattern INTEGER = Pattern.compile("(?<![%\\w.$])\\d+(?![\\w.])");
    private static final Pattern SLOT = Pattern.compile("\\$(\\d+)");

    private BatchTemplate() {}

    /// The template of `first`, the text at batch size `b1`, and `second`, at `b2`.
    static String of(String op, String first, int b1, String second, int b2) {
        List<String> pieces1 = new ArrayList<>(), pieces2 = new ArrayList<>();
        List<Long> numbers1 = split(first, pieces1), numbers2 = split(second, pieces2);
        var template = new StringBuilder();
        int at = 0; // where in `first` the comparison is
        for (int i = 0; i < pieces1.size(); i++) {
            if (i >= pieces2.size() || !pieces1.get(i).equals(pieces2.get(i))) throw differs(op, first, at, second);
            template.append(pieces1.get(i));
            at += pieces1.get(i).length();
            if (i == numbers1.size()) break;
            if (i == numbers2.size()) throw differs(op, first, at, second);
            long a = numbers1.get(i), b = numbers2.get(i);
            if (a == b) template.append(a);
            else if (a % b1 == 0 && b % b2 == 0 && a / b1 == b / b2) template.append('$').append(a / b1);
            else throw differs(op, first, at, second);
            at += Long.toString(a).length();
        }
        if (pieces1.size() != pieces2.size()) throw differs(op, first, at, second);
        return template.toString();
    }

    /// The graph text for batch size `batch`.
    static String instantiate(String template, int batch) {
        return SLOT.matcher(template).replaceAll(m -> Long.toString(Long.parseLong(m.group(1)) * batch));
    }

    /// Whether the text has a batch slot at all.
    static boolean isBatched(String template) { return SLOT.matcher(template).find(); }

    // The integers of `text`, and the text between them into `pieces` (one more than integers).
    private static List<Long> split(String text, List<String> pieces) {
        var numbers = new ArrayList<Long>();
        Matcher m = INTEGER.matcher(text);
        int at = 0;
        while (m.find()) {
            pieces.add(text.substring(at, m.start()));
            numbers.add(Long.parseLong(m.group()));
            at = m.end();
        }
        pieces.add(text.substring(at));
        return numbers;
    }

    // The error for texts that first differ on the line of `first` that holds `offset`.
    private static SmeltException differs(String op, String first, int offset, String second) {
        int line = (int) first.substring(0, Math.min(offset, first.length())).chars().filter(c -> c == '\n').count();
        var lines1 = first.lines().toList();
        var lines2 = second.lines().toList();
        String one = line < lines1.size() ? lines1.get(line).strip() : "(end)", two = line < lines2.size() ? lines2.get(line).strip() : "(end)";
        return SmeltException.of(op, "the function depends on the batch size beyond its shapes (traced at two batch sizes, line %d reads '%s' and '%s'): "
                + "a mean or other reduction over the batch axis, or code that branches on the batch size, cannot run on batches of another size; "
                + "make each row's result depend on that row only", line + 1, one, two);
    }
}
