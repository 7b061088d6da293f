// SPDX-License-Identifier: Apache-2.0
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.objectweb.asm.ClassReader;
import org.objectweb.asm.ClassVisitor;
import org.objectweb.asm.ClassWriter;
import org.objectweb.asm.Handle;
import org.objectweb.asm.Label;
import org.objectweb.asm.MethodVisitor;
import org.objectweb.asm.Opcodes;
import org.objectweb.asm.Type;

/// A build step, run by Maven on a library module's classes once javac has written them
/// (`java -cp <module classpath> build-tools/Desugar.java target/classes`): it turns the
/// `invokedynamic` call sites of lambdas and method references, of pattern switches over classes
/// and of records' own methods into plain calls, with the same behaviour.
///
/// Why: a fresh JVM links each such call site the first time it runs, generating a class for it
/// (0.5–1 ms each, the first of each kind 6–25 ms), and a JDK AOT cache cannot keep them while the
/// incubator module `jdk.incubator.vector` is in the boot layer (no archived module graph, so no
/// archived call sites). A first compile runs dozens of them. Written out as classes, they load
/// like any other class, from the jar or from an AOT cache.
///
/// - A lambda or method reference (`LambdaMetafactory.metafactory`) becomes a final class
///   `Host$Lambda$n` in the host's nest (so it may call the host's private `lambda$…` method),
///   holding the captured values, with the functional method adapting its arguments and result
///   as the metafactory would (casts, boxing, unboxing, widening); its static `create` method
///   replaces the call site (one shared instance when nothing is captured, as the metafactory
///   gives).
/// - A pattern switch over classes (`SwitchBootstraps.typeSwitch` with class labels only) calls a
///   static method of the host that tests the labels in order with `instanceof`, from the restart
///   index: what the bootstrap's generated method does.
/// - A record's `equals`, `hashCode` and `toString` (`ObjectMethods.bootstrap`) call static
///   methods of the record that compute what the bootstrap's method handles compute ([Records]).
///
/// Any other call site (string, integer or enum labels, a conversion this step does not write,
/// serializable lambdas) is left as it is.
public final class Desugar {
    private static final String METAFACTORY = "java/lang/invoke/LambdaMetafactory", SWITCHES = "java/lang/runtime/SwitchBootstraps",
            OBJECT_METHODS = "java/lang/runtime/ObjectMethods";

    private final Path root;
    private final Map<String, byte[]> written = new TreeMap<>();
    private final Map<String, List<String>> newMembers = new HashMap<>();
    private int lambdas, switches, records;
    private final Map<String, Integer> left = new TreeMap<>();

    private Desugar(Path root) { this.root = root; }

    public static void main(String[] args) throws IOException {
        var desugar = new Desugar(Path.of(args[0]));
        desugar.deleteStale();
        for (Path file : desugar.classFiles()) desugar.rewrite(Files.readAllBytes(file));
        desugar.addNestMembers();
        for (var entry : desugar.written.entrySet()) Files.write(desugar.root.resolve(entry.getKey() + ".class"), entry.getValue());
        System.out.printf("Desugar %s: %d lambdas and method references, %d type switches, %d record methods written out; call sites left: %s%n", desugar.root,
                desugar.lambdas, desugar.switches, desugar.records, desugar.left);
    }

    private List<Path> classFiles() throws IOException {
        try (var walk = Files.walk(root)) {
            return walk.filter(f -> f.toString().endsWith(".class")).sorted().toList();
        }
    }

    /// Deletes the classes an earlier run generated for a host javac has compiled again since:
    /// the host's nest no longer lists them (javac writes the nest afresh).
    private void deleteStale() throws IOException {
        for (Path file : classFiles()) {
            if (!file.getFileName().toString().matches(".*\\$Lambda\\$\\d+\\.class")) continue;
            String[] nestHost = new String[1];
            new ClassReader(Files.readAllBytes(file)).accept(new ClassVisitor(Opcodes.ASM9) {
                @Override
                public void visitNestHost(String host) { nestHost[0] = host; }
            }, ClassReader.SKIP_CODE);
            Path host = nestHost[0] == null ? null : root.resolve(nestHost[0] + ".class");
            if (host == null || !Files.exists(host) || !nestMembers(Files.readAllBytes(host)).contains(stripClass(root.relativize(file)))) Files.delete(file);
        }
    }

    private static String stripClass(Path relative) {
        String name = relative.toString().replace(java.io.File.separatorChar, '/');
        return name.substring(0, name.length() - ".class".length());
    }

    private static List<String> nestMembers(byte[] bytes) {
        var members = new ArrayList<String>();
        new ClassReader(bytes).accept(new ClassVisitor(Opcodes.ASM9) {
            @Override
            public void visitNestMember(String member) { members.add(member); }
        }, ClassReader.SKIP_CODE);
        return members;
    }

    // The host rewritten (if it has a call site to write out), and the classes it gains.
    private void rewrite(byte[] bytes) {
        var reader = new ClassReader(bytes);
        var writer = new ClassWriter(reader, ClassWriter.COMPUTE_MAXS);
        var host = new Host(writer);
        reader.accept(host, 0);
        if (host.changed) written.put(reader.getClassName(), writer.toByteArray());
    }

    // Each nest host lists the classes generated for its nest.
    private void addNestMembers() throws IOException {
        for (var entry : newMembers.entrySet()) {
            String host = entry.getKey();
            byte[] bytes = written.containsKey(host) ? written.get(host) : Files.readAllBytes(root.resolve(host + ".class"));
            var reader = new ClassReader(bytes);
            var writer = new ClassWriter(reader, 0);
            reader.accept(new ClassVisitor(Opcodes.ASM9, writer) {
                @Override
                public void visitEnd() {
                    for (String member : entry.getValue()) super.visitNestMember(member);
                    super.visitEnd();
                }
            }, 0);
            written.put(host, writer.toByteArray());
        }
    }

    /// One class being rewritten.
    final class Host extends ClassVisitor {
        private String name, nestHost, simpleName;
        private int version;
        private boolean isInterface, changed;
        private final List<Object[]> switchMethods = new ArrayList<>(), recordMethods = new ArrayList<>();

        Host(ClassVisitor next) { super(Opcodes.ASM9, next); }

        @Override
        public void visit(int version, int access, String name, String signature, String superName, String[] interfaces) {
            this.version = version;
            this.name = name;
            this.nestHost = name;
            this.simpleName = name.substring(name.lastIndexOf('/') + 1);
            this.isInterface = (access & Opcodes.ACC_INTERFACE) != 0;
            super.visit(version, access, name, signature, superName, interfaces);
        }

        @Override
        public void visitInnerClass(String inner, String outer, String innerName, int access) {
            if (inner.equals(name) && innerName != null) simpleName = innerName; // a nested record's Class.getSimpleName()
            super.visitInnerClass(inner, outer, innerName, access);
        }

        @Override
        public void visitNestHost(String nestHost) {
            this.nestHost = nestHost;
            super.visitNestHost(nestHost);
        }

        @Override
        public MethodVisitor visitMethod(int access, String method, String descriptor, String signature, String[] exceptions) {
            return new MethodVisitor(Opcodes.ASM9, super.visitMethod(access, method, descriptor, signature, exceptions)) {
                @Override
                public void visitInvokeDynamicInsn(String indyName, String indyDescriptor, Handle bootstrap, Object... arguments) {
                    String owner = bootstrap.getOwner(), bsm = bootstrap.getName();
                    if (owner.equals(METAFACTORY) && bsm.equals("metafactory")) {
                        String lambda = Lambdas.write(Host.this, indyName, indyDescriptor, arguments);
                        if (lambda != null) {
                            super.visitMethodInsn(Opcodes.INVOKESTATIC, lambda, "create", indyDescriptor, false);
                            lambdas++;
                            changed = true;
                            return;
                        }
                    } else if (owner.equals(SWITCHES) && bsm.equals("typeSwitch") && classLabels(arguments)) {
                        String helper = "typeSwitch$" + switchMethods.size();
                        switchMethods.add(new Object[] {helper, indyDescriptor, arguments});
                        super.visitMethodInsn(Opcodes.INVOKESTATIC, name, helper, indyDescriptor, isInterface);
                        switches++;
                        changed = true;
                        return;
                    }
                    if (owner.equals(OBJECT_METHODS) && bsm.equals("bootstrap") && Records.supported(indyName, arguments)) {
                        String helper = indyName + "$record";
                        recordMethods.add(new Object[] {helper, indyName, indyDescriptor, arguments});
                        super.visitMethodInsn(Opcodes.INVOKESTATIC, name, helper, indyDescriptor, isInterface);
                        records++;
                        changed = true;
                        return;
                    }
                    left.merge(owner.substring(owner.lastIndexOf('/') + 1) + "." + bsm, 1, Integer::sum);
                    super.visitInvokeDynamicInsn(indyName, indyDescriptor, bootstrap, arguments);
                }
            };
        }

        @Override
        public void visitEnd() {
            for (Object[] helper : switchMethods) typeSwitch(cv, (String) helper[0], (String) helper[1], (Object[]) helper[2]);
            for (Object[] helper : recordMethods) Records.write(cv, (String) helper[0], (String) helper[1], (String) helper[2], simpleName, (Object[]) helper[3]);
            super.visitEnd();
        }

        /// A class name for a generated class of this host's, not taken by a file.
        String newClassName() {
            for (int n = 0; ; n++) {
                String candidate = name + "$Lambda$" + n;
                if (!written.containsKey(candidate) && !Files.exists(root.resolve(candidate + ".class"))) return candidate;
            }
        }

        void generated(String className, byte[] bytes) {
            written.put(className, bytes);
            newMembers.computeIfAbsent(nestHost, h -> new ArrayList<>()).add(className);
        }

        int version() { return version; }

        String nestHost() { return nestHost; }
    }

    private static boolean classLabels(Object[] labels) {
        for (Object label : labels)
            if (!(label instanceof Type type) || type.getSort() != Type.OBJECT && type.getSort() != Type.ARRAY) return false;
        return true;
    }

    /// `static int typeSwitch$n(Selector target, int restart)`:
    /// `if (target == null) return -1; if (restart <= 0 && target instanceof L0) return 0; … return labels.length;`
    private static void typeSwitch(ClassVisitor host, String helper, String descriptor, Object[] labels) {
        MethodVisitor m = host.visitMethod(Opcodes.ACC_PRIVATE | Opcodes.ACC_STATIC | Opcodes.ACC_SYNTHETIC, helper, descriptor, null, null);
        m.visitCode();
        m.visitVarInsn(Opcodes.ALOAD, 0);
        Records.returnUnless(m, Opcodes.IFNONNULL, Opcodes.ICONST_M1);
        for (int i = 0; i < labels.length; i++) {
            Label next = new Label();
            m.visitVarInsn(Opcodes.ILOAD, 1);
            m.visitLdcInsn(i);
            m.visitJumpInsn(Opcodes.IF_ICMPGT, next);
            m.visitVarInsn(Opcodes.ALOAD, 0);
            m.visitTypeInsn(Opcodes.INSTANCEOF, ((Type) labels[i]).getInternalName());
            m.visitJumpInsn(Opcodes.IFEQ, next);
            m.visitLdcInsn(i);
            m.visitInsn(Opcodes.IRETURN);
            m.visitLabel(next);
            m.visitFrame(Opcodes.F_SAME, 0, null, 0, null);
        }
        m.visitLdcInsn(labels.length);
        m.visitInsn(Opcodes.IRETURN);
        m.visitMaxs(0, 0);
        m.visitEnd();
    }
}
