// SPDX-License-Identifier: Apache-2.0
package dev.smelt.fusion;

import jdk.incubator.vector.VectorShape;

/// What the cost model assumes of the machine: its vector register file.
/// @param vectorRegisters registers of the preferred vector width: 32 with AVX-512, 16 with AVX2 or NEON
/// @param vectorBits      the preferred vector width in bits
public record Machine(int vectorRegisters, int vectorBits) {
    /// This machine, from the Vector API's preferred shape (`-Dsmelt.vectorRegisters` overrides the count).
    public static final Machine CURRENT = detect();

    public Machine {
        if (vectorRegisters < 4 || vectorBits < 64) throw new IllegalArgumentException("implausible machine: %d registers of %d bits".formatted(vectorRegisters, vectorBits));
    }

    private static Machine detect() {
        int bits = VectorShape.preferredShape().vectorBitSize();
        // x86 has 32 vector registers only with AVX-512 (zmm0–31); AVX2 has 16 (ymm0–15); AArch64 has 32.
        String arch = System.getProperty("os.arch", ""); // not String.matches: a regex compiles interpreted on every first compile
        boolean x86 = arch.equals("amd64") || arch.equals("x86_64");
        int registers = !x86 || bits >= 512 ? 32 : 16;
        return new Machine(dev.smelt.ir.Settings.integer("smelt.vectorRegisters", registers, 16), bits);
    }

    /// Lanes of one vector of `bytes`-wide elements.
    int lanes(int bytes) { return Math.max(1, vectorBits / 8 / bytes); }
}
