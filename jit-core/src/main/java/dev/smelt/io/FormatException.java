// SPDX-License-Identifier: Apache-2.0
package dev.smelt.io;

import java.io.IOException;

/// A file that breaks its format's rules; the message says which rule and where. The public
/// readers (`dev.smelt.SafeTensors`, `dev.smelt.Npy`) turn it into a `SmeltException` naming the file.
public final class FormatException extends IOException {
    FormatException(String message) { super(message); }
}
