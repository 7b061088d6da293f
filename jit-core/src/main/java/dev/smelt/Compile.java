// SPDX-License-Identifier: Apache-2.0
package dev.smelt;

import dev.smelt.ir.FusionMode;
import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/// Marks a method to be traced and compiled per signature, the Java form of `@torch.compile` and
/// `@jax.jit`, on instances made by [Jit#instance]. The method must be overridable (not static,
/// private or final), return a [Tensor], and take tensors and non-tensor values of the kinds a
/// [Signature] keys on: `int`, `long`, `float`, `double`, `boolean`, strings and enums. Tensors
/// the method reads from fields become graph inputs, read afresh on each call; other fields are
/// read once, when a signature is traced. The annotation is not inherited: an overriding method
/// must carry it again to be compiled.
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.METHOD)
public @interface Compile {
    /// Recompiles of this method before a warning; negative means [Compiled#DEFAULT_RECOMPILE_LIMIT].
    int recompileLimit() default -1;

    /// How the method's graph is cut into kernels ([Compiled#withFusion]).
    FusionMode fusion() default FusionMode.COST_MODEL;
}
