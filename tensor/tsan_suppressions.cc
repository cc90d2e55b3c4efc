// ThreadSanitizer suppressions, compiled into every test binary (only a TSan
// build ever calls this).
//
// libstdc++ is not built with TSan, so the atomic reference counts inside
// std::exception_ptr are invisible to it. When a task on an executor throws,
// the caller reads the exception and drops its reference; the executor
// thread may then drop the last one and free the exception. The free is
// ordered after the read by that atomic count, which TSan cannot see, and it
// reports a race that is not there.
extern "C" const char* __tsan_default_suppressions() {
  return "race:std::__exception_ptr::exception_ptr::_M_release\n";
}
