// SPDX-License-Identifier: Apache-2.0
package dev.smelt.runtime;

import dev.smelt.ir.Storage;
import dev.smelt.plan.MemoryPlan;
import java.lang.ref.SoftReference;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.atomic.AtomicReferenceArray;

/// A [MemoryPlan] worked out for [Program]'s calls: each buffer's slot, the first buffer of each
/// slot, the donations it was planned for, and a pool of idle [Frame]s taking no lock (a tiny
/// call's whole budget is a few dozen nanoseconds). The pool holds its frames softly: a function
/// keeps a program per signature and per dynamic size, and held strongly, each idle frame's
/// intermediates would stay allocated as long as its program is cached, so calls at many batch
/// sizes would hold many times what one call needs; the collector frees them when memory runs short.
final class Layout {
    /// Idle frames kept per layout: one per core serves as many concurrent calls as can run at
    /// once; calls beyond that make a frame and drop it afterwards.
    static final int FRAMES = Runtime.getRuntime().availableProcessors();

    final MemoryPlan memory;
    final int[] slotOf, firstBuffer;
    /// Per output, the input whose array it was planned to update in place, or −1; null for the
    /// plain layout.
    final int[] donorOf;
    /// Whether every slot is returned (a one-kernel program): its frames hold no intermediates.
    final boolean noIntermediates;
    private final int outputs;
    private final int[] launchBuffers;
    private final AtomicReferenceArray<SoftReference<Frame>> frames = new AtomicReferenceArray<>(FRAMES);

    /// `launchBuffers`: per launch, how many buffers it binds, or 0 when it takes the program's
    /// whole table ([Program]'s `Call.identity`).
    Layout(MemoryPlan memory, int buffers, int outputs, int[] launchBuffers, int[] donorOf) {
        this.memory = memory;
        this.outputs = outputs;
        this.slotOf = new int[buffers];
        this.firstBuffer = new int[memory.slots().size()];
        Arrays.fill(firstBuffer, -1);
        for (int b = 0; b < buffers; b++) {
            slotOf[b] = memory.slot(b);
            if (slotOf[b] >= 0 && firstBuffer[slotOf[b]] < 0) firstBuffer[slotOf[b]] = b;
        }
        boolean noIntermediates = true;
        for (var slot : memory.slots()) noIntermediates &= slot.returned();
        this.noIntermediates = noIntermediates;
        this.launchBuffers = launchBuffers;
        this.donorOf = donorOf;
    }

    /// The scratch of one call: the arena (the plan's intermediate slots, kept across calls), and
    /// the tables a call fills (each slot's array, each buffer's array, each launch's buffers, the
    /// outputs to copy), made once so that a call allocates only what it returns. [#clear]ed
    /// before it goes back to the pool, so a pooled frame keeps no caller's array alive.
    static final class Frame {
        final Object[] arena, slots, arrays, sources;
        final Object[][] launches;
        final int[] copies;
        /// How the pool holds this frame while it is idle; made once, so a call allocates nothing for it.
        final SoftReference<Frame> idle = new SoftReference<>(this);

        Frame(Layout layout) {
            this.arena = layout.memory.newArena();
            this.slots = new Object[arena.length];
            this.arrays = new Object[layout.slotOf.length];
            this.launches = new Object[layout.launchBuffers.length][];
            for (int l = 0; l < launches.length; l++) launches[l] = layout.launchBuffers[l] == 0 ? null : new Object[layout.launchBuffers[l]];
            this.sources = new Object[layout.outputs];
            this.copies = new int[layout.outputs];
        }

        void clear() {
            Arrays.fill(slots, null);
            Arrays.fill(arrays, null);
            Arrays.fill(sources, null);
            for (Object[] launch : launches) if (launch != null) Arrays.fill(launch, null);
        }
    }

    Object allocate(int slot) {
        var s = memory.slots().get(slot);
        return Storage.newArray(s.dtype(), s.size());
    }

    /// A pooled frame, or a new one when every pooled frame is in use.
    Frame take() {
        for (int i = 0; i < FRAMES; i++) {
            SoftReference<Frame> idle = frames.getAndSet(i, null);
            Frame frame = idle == null ? null : idle.get();
            if (frame != null) return frame;
        }
        return new Frame(this);
    }

    void giveBack(Frame frame) {
        frame.clear();
        for (int i = 0; i < FRAMES; i++) if (frames.compareAndSet(i, null, frame.idle)) return;
    }

    /// Whether this layout was planned for exactly the donations of `outputs` to `inputs`: each
    /// output's array is the first input with the same array, as [Program] finds them.
    boolean plannedFor(List<Storage> inputs, List<Storage> outputs) {
        if (donorOf == null || donorOf.length != outputs.size()) return false;
        for (int o = 0; o < outputs.size(); o++)
            if (donorOf[o] != Program.donorOf(inputs, outputs.get(o).array())) return false;
        return true;
    }
}
