// SPDX-License-Identifier: Apache-2.0
package dev.smelt;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/// Marks axes of a [Tensor] parameter of a [Compile] method as dynamic, as
/// [Compiled#dynamic] does for a function: a call with another size along them is not a
/// recompile, and the kernels whose rows run along them are reused. `Tensor forward(@Dynamic Tensor x)`
/// marks the batch (axis 0); `@Dynamic({0, 1})` marks two axes, and negative axes count from the end.
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.PARAMETER)
public @interface Dynamic {
    /// The dynamic axes of the parameter.
    int[] value() default {0};
}
