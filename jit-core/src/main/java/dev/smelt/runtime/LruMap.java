// SPDX-License-Identifier: Apache-2.0
package dev.smelt.runtime;

import java.util.LinkedHashMap;
import java.util.Map;

/// A map of at most `capacity` entries that drops the least recently used: the bound on every
/// cache of the runtime (kernels, eager programs, a function's signatures). Not synchronized.
public final class LruMap<K, V> extends LinkedHashMap<K, V> {
    private final int capacity;

    public LruMap(int capacity) {
        super(16, 0.75f, true);
        this.capacity = capacity;
    }

    @Override
    protected boolean removeEldestEntry(Map.Entry<K, V> eldest) { return size() > capacity; }
}
