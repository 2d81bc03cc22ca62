// The calling convention of the kernels that own their memory and use the stub runtime's allocator: the
// caller resets, allocates and fills each input block, then calls the kernel's entry point.

/** Drops every block allocated since the last reset. */
export function reset(): void {
  __reset();
}

/** A block of `bytes` for the caller to write an input into. */
export function alloc(bytes: i32): usize {
  return __alloc(<usize>bytes);
}
