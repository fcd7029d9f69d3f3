#pragma once
/*
 * GlobalExecutorHooks: sets the Swift runtime's global-executor hooks
 * (swift_task_enqueueGlobal_hook & co., swift/Runtime/ConcurrencyHooks.def), the variables
 * libswift_Concurrency exports so that a process can run its tasks on an executor of its own.
 * Swift cannot name another module's C global variable; C can, and the reference resolves the
 * same whether the runtime is a shared library or linked in statically (where dlsym would not
 * find it). The hooks themselves are Swift functions, passed as opaque pointers. No logic here.
 */

/* Each argument is a `@convention(thin)` Swift function of the hook's type, or NULL. */
void swrh_set_global_executor_hooks(void *enqueue_global, void *enqueue_global_with_delay,
                                    void *enqueue_global_with_deadline);
