package dev.warden.aop;

import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.BiConsumer;
import java.util.function.Consumer;

import org.jspecify.annotations.Nullable;
import org.springframework.asm.ClassReader;
import org.springframework.asm.ClassVisitor;
import org.springframework.asm.FieldVisitor;
import org.springframework.asm.Handle;
import org.springframework.asm.Label;
import org.springframework.asm.MethodVisitor;
import org.springframework.asm.Opcodes;
import org.springframework.asm.SpringAsmInfo;
import org.springframework.asm.Type;

/**
 * Finds, in a class's bytecode, the calls its methods make on {@code this} to given methods: calls a
 * Spring proxy never sees. It follows which operand-stack slot holds {@code this} (the receiver of
 * {@code this.close(id)} and of Kotlin's {@code close$default(this, ...)}), so a call through an
 * injected reference to the bean's own proxy ({@code self.close(id)}) is not one.
 */
final class SelfCalls {

	/** A method, by name and descriptor. */
	record Signature(String name, String descriptor) {
	}

	/** A call of {@code callee} on {@code this}, made in {@code caller}. */
	record Call(Signature caller, Signature callee) {
	}

	private SelfCalls() {
	}

	/** The most classes of lambdas, coroutine blocks and inner classes one class's check reads. */
	private static final int MAX_NESTED_CLASSES = 256;

	/**
	 * The superclasses of the continuation of a Kotlin {@code suspend} function: its state machine
	 * calls the function again to resume it, which is no call of the author's.
	 */
	private static final Set<String> SUSPEND_FUNCTION_CONTINUATIONS = Set.of(
			"kotlin/coroutines/jvm/internal/ContinuationImpl", "kotlin/coroutines/jvm/internal/RestrictedContinuationImpl");

	/**
	 * The calls on {@code this} to any of {@code targets} that the methods declared by {@code type}
	 * make (lambda bodies included, compiler-made bridges and default-argument stubs left out).
	 * <p>
	 * The bodies of lambdas, coroutine blocks ({@code launch {}}, {@code async {}}), anonymous and
	 * inner classes that the compiler puts in classes of their own ({@code Type$method$1}, which
	 * reach the instance through their {@code this$0} field) are read too, following the classes
	 * each method instantiates: their calls count as the calls of the method that creates them.
	 * @return the calls; empty when the class file cannot be read
	 */
	static List<Call> in(Class<?> type, Set<Signature> targets) {
		ClassLoader loader = (type.getClassLoader() != null) ? type.getClassLoader() : ClassLoader.getSystemClassLoader();
		Type self = Type.getType(type);
		String nestedPrefix = self.getInternalName() + "$";
		List<Call> calls = new ArrayList<>();
		// Nested classes still to read, each with the method of type that creates it.
		Map<String, Signature> nested = new LinkedHashMap<>();
		Deque<String> toRead = new ArrayDeque<>();
		BiConsumer<String, Signature> instantiated = (className, caller) -> {
			if (className.startsWith(nestedPrefix) && nested.size() < MAX_NESTED_CLASSES
					&& nested.putIfAbsent(className, caller) == null) {
				toRead.add(className);
			}
		};
		try {
			boolean read = read(loader, self.getInternalName(), new ClassVisitor(SpringAsmInfo.ASM_VERSION) {
				@Override
				public @Nullable MethodVisitor visitMethod(int access, String name, String descriptor,
						@Nullable String signature, String @Nullable [] exceptions) {
					boolean defaultStub = name.endsWith("$default") && (access & Opcodes.ACC_SYNTHETIC) != 0;
					if ((access & (Opcodes.ACC_BRIDGE | Opcodes.ACC_ABSTRACT | Opcodes.ACC_NATIVE)) != 0 || defaultStub) {
						return null;
					}
					Signature caller = new Signature(name, descriptor);
					return new Receivers(caller, receivesThis(access, name, descriptor, self), Set.of(), targets, calls,
							className -> instantiated.accept(className, caller));
				}
			});
			if (!read) {
				return List.of();
			}
			while (!toRead.isEmpty()) {
				String className = toRead.poll();
				readNested(loader, className, nested.get(className), self, targets, calls, instantiated);
			}
			return calls;
		}
		catch (IOException | RuntimeException ex) {
			// Unreadable bytecode (generated, instrumented): nothing can be said of it.
			return List.of();
		}
	}

	/**
	 * Reads a class of a lambda, coroutine block, anonymous or inner class of {@code self}: the
	 * instance is what its {@code this$0} field holds, and its calls are {@code caller}'s.
	 */
	private static void readNested(ClassLoader loader, String className, Signature caller, Type self,
			Set<Signature> targets, List<Call> calls, BiConsumer<String, Signature> instantiated) throws IOException {
		String outerField = className + ".this$0";
		read(loader, className, new ClassVisitor(SpringAsmInfo.ASM_VERSION) {

			private boolean continuation;

			private boolean reachesInstance;

			@Override
			public void visit(int version, int access, String name, @Nullable String signature,
					@Nullable String superName, String @Nullable [] interfaces) {
				continuation = superName != null && SUSPEND_FUNCTION_CONTINUATIONS.contains(superName);
			}

			@Override
			public @Nullable FieldVisitor visitField(int access, String name, String descriptor,
					@Nullable String signature, @Nullable Object value) {
				if (name.equals("this$0") && descriptor.equals(self.getDescriptor())) {
					reachesInstance = true;
				}
				return null;
			}

			@Override
			public @Nullable MethodVisitor visitMethod(int access, String name, String descriptor,
					@Nullable String signature, String @Nullable [] exceptions) {
				if (continuation || (access & (Opcodes.ACC_BRIDGE | Opcodes.ACC_ABSTRACT | Opcodes.ACC_NATIVE)) != 0) {
					return null;
				}
				// Local 0 is the nested instance, never the bean: only this$0 leads to it.
				return new Receivers(caller, false, reachesInstance ? Set.of(outerField) : Set.of(), targets, calls,
						nestedClass -> instantiated.accept(nestedClass, caller));
			}

		});
	}

	/** Reads a class file with {@code visitor}; {@code false} when there is none. */
	private static boolean read(ClassLoader loader, String internalName, ClassVisitor visitor) throws IOException {
		try (InputStream bytes = loader.getResourceAsStream(internalName + ".class")) {
			if (bytes == null) {
				return false;
			}
			new ClassReader(bytes).accept(visitor, ClassReader.EXPAND_FRAMES);
			return true;
		}
	}

	/**
	 * Whether local 0 of the method holds the instance: an instance method's, or a compiler-made
	 * static method's that takes the instance first (Kotlin's {@code close$suspendImpl(this, ...)}
	 * of an open class's suspend function, its lambdas' bodies).
	 */
	private static boolean receivesThis(int access, String name, String descriptor, Type self) {
		if ((access & Opcodes.ACC_STATIC) == 0) {
			return true;
		}
		Type[] arguments = Type.getArgumentTypes(descriptor);
		return name.indexOf('$') >= 0 && arguments.length > 0 && arguments[0].equals(self);
	}

	/**
	 * Follows the operand stack one word per slot, marking the slots that hold {@code this}, and the
	 * locals and fields {@code this} is stored in (a Kotlin coroutine spills it to a field of its
	 * continuation across a suspension and loads it back). At every frame (branch targets, and after
	 * every jump, return or throw) the stack is reset to the frame's depth, unmarked: a receiver
	 * chosen by a branch is not followed.
	 */
	private static final class Receivers extends MethodVisitor {

		private final Signature caller;

		private final Set<Signature> targets;

		private final List<Call> calls;

		private final Deque<Boolean> stack = new ArrayDeque<>();

		/** The locals that hold {@code this}. */
		private final Set<Integer> thisLocals = new HashSet<>();

		/** The fields ({@code owner.name}) {@code this} was stored in. */
		private final Set<String> thisFields = new HashSet<>();

		/** Told of each class the method instantiates. */
		private final Consumer<String> instantiates;

		Receivers(Signature caller, boolean receivesThis, Set<String> fieldsHoldingThis, Set<Signature> targets,
				List<Call> calls, Consumer<String> instantiates) {
			super(SpringAsmInfo.ASM_VERSION);
			this.caller = caller;
			if (receivesThis) {
				thisLocals.add(0);
			}
			this.thisFields.addAll(fieldsHoldingThis);
			this.targets = targets;
			this.calls = calls;
			this.instantiates = instantiates;
		}

		private void push(int words) {
			for (int i = 0; i < words; i++) {
				stack.push(Boolean.FALSE);
			}
		}

		private void pop(int words) {
			for (int i = 0; i < words && !stack.isEmpty(); i++) {
				stack.pop();
			}
		}

		private boolean isThisAt(int wordsBelowTop) {
			int i = 0;
			for (Boolean slot : stack) {
				if (i++ == wordsBelowTop) {
					return slot;
				}
			}
			return false;
		}

		@Override
		public void visitFrame(int type, int numLocal, Object @Nullable [] local, int numStack,
				Object @Nullable [] stackTypes) {
			stack.clear();
			for (int i = 0; i < numStack && stackTypes != null; i++) {
				push((stackTypes[i] == Opcodes.LONG || stackTypes[i] == Opcodes.DOUBLE) ? 2 : 1);
			}
		}

		@Override
		public void visitLabel(Label label) {
		}

		@Override
		public void visitVarInsn(int opcode, int varIndex) {
			switch (opcode) {
				case Opcodes.ALOAD -> stack.push(thisLocals.contains(varIndex));
				case Opcodes.ILOAD, Opcodes.FLOAD -> push(1);
				case Opcodes.LLOAD, Opcodes.DLOAD -> push(2);
				case Opcodes.ASTORE -> {
					boolean isThis = isThisAt(0);
					pop(1);
					if (isThis) {
						thisLocals.add(varIndex);
					}
					else {
						thisLocals.remove(varIndex);
					}
				}
				case Opcodes.ISTORE, Opcodes.FSTORE -> {
					pop(1);
					thisLocals.remove(varIndex);
				}
				case Opcodes.LSTORE, Opcodes.DSTORE -> {
					pop(2);
					thisLocals.remove(varIndex);
					thisLocals.remove(varIndex + 1);
				}
				default -> {
					// RET: no stack effect.
				}
			}
		}

		@Override
		public void visitInsn(int opcode) {
			if (opcode == Opcodes.DUP) {
				stack.push(isThisAt(0));
				return;
			}
			int[] effect = Stack.effect(opcode);
			if (effect == null) {
				shuffle(opcode);
				return;
			}
			pop(effect[0]);
			push(effect[1]);
		}

		/** The DUP and SWAP forms, with the words they move. */
		private void shuffle(int opcode) {
			int taken = switch (opcode) {
				case Opcodes.DUP_X1, Opcodes.DUP2, Opcodes.SWAP -> 2;
				case Opcodes.DUP_X2, Opcodes.DUP2_X1 -> 3;
				case Opcodes.DUP2_X2 -> 4;
				default -> 0;
			};
			Boolean[] top = new Boolean[taken];
			for (int i = 0; i < taken; i++) {
				top[i] = stack.isEmpty() ? Boolean.FALSE : stack.pop();
			}
			// top[0] is the top word. Rebuild bottom-up.
			List<Boolean> rebuilt = switch (opcode) {
				case Opcodes.DUP_X1 -> List.of(top[0], top[1], top[0]);
				case Opcodes.DUP_X2 -> List.of(top[0], top[2], top[1], top[0]);
				case Opcodes.DUP2 -> List.of(top[1], top[0], top[1], top[0]);
				case Opcodes.DUP2_X1 -> List.of(top[1], top[0], top[2], top[1], top[0]);
				case Opcodes.DUP2_X2 -> List.of(top[1], top[0], top[3], top[2], top[1], top[0]);
				case Opcodes.SWAP -> List.of(top[0], top[1]);
				default -> List.of();
			};
			rebuilt.forEach(stack::push);
		}

		@Override
		public void visitIntInsn(int opcode, int operand) {
			if (opcode == Opcodes.NEWARRAY) {
				pop(1);
			}
			push(1);
		}

		@Override
		public void visitLdcInsn(Object value) {
			push((value instanceof Long || value instanceof Double) ? 2 : 1);
		}

		@Override
		public void visitTypeInsn(int opcode, String type) {
			switch (opcode) {
				case Opcodes.NEW -> {
					instantiates.accept(type);
					push(1);
				}
				case Opcodes.CHECKCAST -> {
					// The same reference: this stays this.
				}
				default -> {
					pop(1);
					push(1);
				}
			}
		}

		@Override
		public void visitFieldInsn(int opcode, String owner, String name, String descriptor) {
			int size = Type.getType(descriptor).getSize();
			String field = owner + "." + name;
			switch (opcode) {
				case Opcodes.GETSTATIC -> push(size);
				case Opcodes.PUTSTATIC -> pop(size);
				case Opcodes.GETFIELD -> {
					pop(1);
					if (thisFields.contains(field)) {
						stack.push(Boolean.TRUE);
					}
					else {
						push(size);
					}
				}
				default -> {
					if (size == 1 && isThisAt(0)) {
						thisFields.add(field);
					}
					pop(size + 1);
				}
			}
		}

		@Override
		public void visitMethodInsn(int opcode, String owner, String name, String descriptor, boolean isInterface) {
			int argumentWords = (Type.getArgumentsAndReturnSizes(descriptor) >> 2) - 1;
			if (opcode == Opcodes.INVOKESTATIC) {
				// Kotlin's default-argument stub takes the receiver as its first argument.
				if (name.endsWith("$default") && argumentWords > 0 && isThisAt(argumentWords - 1)) {
					record(name.substring(0, name.length() - "$default".length()), descriptor, true);
				}
			}
			else if (isThisAt(argumentWords)) {
				record(name, descriptor, false);
			}
			pop(argumentWords + ((opcode == Opcodes.INVOKESTATIC) ? 0 : 1));
			push(Type.getReturnType(descriptor).getSize());
		}

		private void record(String name, String descriptor, boolean defaultStub) {
			for (Signature target : targets) {
				if (!target.name().equals(name)) {
					continue;
				}
				if (defaultStub ? matchesStub(target.descriptor(), descriptor) : target.descriptor().equals(descriptor)) {
					calls.add(new Call(caller, target));
				}
			}
		}

		/** Whether {@code stub} is {@code (Owner, arguments..., int..., Object)} of {@code target}'s arguments. */
		private static boolean matchesStub(String target, String stub) {
			Type[] targetArguments = Type.getArgumentTypes(target);
			Type[] stubArguments = Type.getArgumentTypes(stub);
			if (stubArguments.length < targetArguments.length + 3) {
				return false;
			}
			for (int i = 0; i < targetArguments.length; i++) {
				if (!targetArguments[i].equals(stubArguments[i + 1])) {
					return false;
				}
			}
			return true;
		}

		@Override
		public void visitInvokeDynamicInsn(String name, String descriptor, Handle bootstrapMethodHandle,
				Object... bootstrapMethodArguments) {
			pop((Type.getArgumentsAndReturnSizes(descriptor) >> 2) - 1);
			push(Type.getReturnType(descriptor).getSize());
		}

		@Override
		public void visitJumpInsn(int opcode, Label label) {
			if (opcode >= Opcodes.IF_ICMPEQ && opcode <= Opcodes.IF_ACMPNE) {
				pop(2);
			}
			else if (opcode == Opcodes.JSR) {
				push(1);
			}
			else if (opcode != Opcodes.GOTO) {
				pop(1);
			}
		}

		@Override
		public void visitTableSwitchInsn(int min, int max, Label dflt, Label... labels) {
			pop(1);
		}

		@Override
		public void visitLookupSwitchInsn(Label dflt, int[] keys, Label[] labels) {
			pop(1);
		}

		@Override
		public void visitMultiANewArrayInsn(String descriptor, int numDimensions) {
			pop(numDimensions);
			push(1);
		}

	}

	/** The stack effect of the instructions without operands, in words. */
	private static final class Stack {

		private Stack() {
		}

		/** {pop, push}, or {@code null} for the DUP and SWAP forms. */
		static int @Nullable [] effect(int opcode) {
			if (opcode >= Opcodes.DUP && opcode <= Opcodes.SWAP) {
				return null;
			}
			if (opcode >= Opcodes.IADD && opcode <= Opcodes.DREM) {
				int words = wordsOf(opcode - Opcodes.IADD);
				return new int[] { 2 * words, words };
			}
			if (opcode >= Opcodes.INEG && opcode <= Opcodes.DNEG) {
				int words = wordsOf(opcode - Opcodes.INEG);
				return new int[] { words, words };
			}
			return switch (opcode) {
				case Opcodes.NOP -> new int[] { 0, 0 };
				case Opcodes.ACONST_NULL, Opcodes.ICONST_M1, Opcodes.ICONST_0, Opcodes.ICONST_1, Opcodes.ICONST_2,
						Opcodes.ICONST_3, Opcodes.ICONST_4, Opcodes.ICONST_5, Opcodes.FCONST_0, Opcodes.FCONST_1,
						Opcodes.FCONST_2 -> new int[] { 0, 1 };
				case Opcodes.LCONST_0, Opcodes.LCONST_1, Opcodes.DCONST_0, Opcodes.DCONST_1 -> new int[] { 0, 2 };
				case Opcodes.IALOAD, Opcodes.FALOAD, Opcodes.AALOAD, Opcodes.BALOAD, Opcodes.CALOAD, Opcodes.SALOAD ->
					new int[] { 2, 1 };
				case Opcodes.LALOAD, Opcodes.DALOAD -> new int[] { 2, 2 };
				case Opcodes.IASTORE, Opcodes.FASTORE, Opcodes.AASTORE, Opcodes.BASTORE, Opcodes.CASTORE,
						Opcodes.SASTORE -> new int[] { 3, 0 };
				case Opcodes.LASTORE, Opcodes.DASTORE -> new int[] { 4, 0 };
				case Opcodes.POP -> new int[] { 1, 0 };
				case Opcodes.POP2 -> new int[] { 2, 0 };
				case Opcodes.ISHL, Opcodes.ISHR, Opcodes.IUSHR, Opcodes.IAND, Opcodes.IOR, Opcodes.IXOR ->
					new int[] { 2, 1 };
				case Opcodes.LSHL, Opcodes.LSHR, Opcodes.LUSHR -> new int[] { 3, 2 };
				case Opcodes.LAND, Opcodes.LOR, Opcodes.LXOR -> new int[] { 4, 2 };
				case Opcodes.I2L, Opcodes.I2D, Opcodes.F2L, Opcodes.F2D -> new int[] { 1, 2 };
				case Opcodes.I2F, Opcodes.F2I, Opcodes.I2B, Opcodes.I2C, Opcodes.I2S -> new int[] { 1, 1 };
				case Opcodes.L2I, Opcodes.L2F, Opcodes.D2I, Opcodes.D2F -> new int[] { 2, 1 };
				case Opcodes.L2D, Opcodes.D2L -> new int[] { 2, 2 };
				case Opcodes.LCMP, Opcodes.DCMPL, Opcodes.DCMPG -> new int[] { 4, 1 };
				case Opcodes.FCMPL, Opcodes.FCMPG -> new int[] { 2, 1 };
				case Opcodes.IRETURN, Opcodes.FRETURN, Opcodes.ARETURN, Opcodes.ATHROW, Opcodes.MONITORENTER,
						Opcodes.MONITOREXIT -> new int[] { 1, 0 };
				case Opcodes.LRETURN, Opcodes.DRETURN -> new int[] { 2, 0 };
				case Opcodes.ARRAYLENGTH -> new int[] { 1, 1 };
				default -> new int[] { 0, 0 };
			};
		}

		/** Words of the operand type of a typed arithmetic family laid out I, L, F, D. */
		private static int wordsOf(int offsetInFamily) {
			int type = offsetInFamily % 4;
			return (type == 1 || type == 3) ? 2 : 1;
		}

	}

}
