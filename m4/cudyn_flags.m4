# CUDYN_CHECK_CC_FLAG(FLAG, [ACTION-IF-OK], [ACTION-IF-NOT])
# Does the C compiler accept FLAG (with warnings treated as errors)?
AC_DEFUN([CUDYN_CHECK_CC_FLAG], [
  AS_VAR_PUSHDEF([cache], [cudyn_cv_cc_flag_$1])
  AC_CACHE_CHECK([whether $CC accepts $1], [cache], [
    save_CFLAGS="$CFLAGS"
    CFLAGS="$CFLAGS -Werror $1"
    AC_COMPILE_IFELSE([AC_LANG_PROGRAM([], [])], [AS_VAR_SET([cache], [yes])], [AS_VAR_SET([cache], [no])])
    CFLAGS="$save_CFLAGS"])
  AS_VAR_IF([cache], [yes], [$2], [$3])
  AS_VAR_POPDEF([cache])
])

# CUDYN_CHECK_LD_FLAG(FLAG, [ACTION-IF-OK], [ACTION-IF-NOT])
# Does linking a shared object with FLAG work?
AC_DEFUN([CUDYN_CHECK_LD_FLAG], [
  AS_VAR_PUSHDEF([cache], [cudyn_cv_ld_flag_$1])
  AC_CACHE_CHECK([whether the linker accepts $1], [cache], [
    save_LDFLAGS="$LDFLAGS"
    LDFLAGS="$LDFLAGS $1"
    AC_LINK_IFELSE([AC_LANG_PROGRAM([], [])], [AS_VAR_SET([cache], [yes])], [AS_VAR_SET([cache], [no])])
    LDFLAGS="$save_LDFLAGS"])
  AS_VAR_IF([cache], [yes], [$2], [$3])
  AS_VAR_POPDEF([cache])
])

# CUDYN_CHECK_CXX_FLAG(FLAG, [ACTION-IF-OK], [ACTION-IF-NOT], [PROGRAM-BODY])
# Does the C++ compiler accept FLAG (with warnings treated as errors), and
# compile the prologue PROGRAM-BODY (empty: nothing) with it?
AC_DEFUN([CUDYN_CHECK_CXX_FLAG], [
  AS_VAR_PUSHDEF([cache], [cudyn_cv_cxx_flag_$1])
  AC_CACHE_CHECK([whether $CXX accepts $1], [cache], [
    AC_LANG_PUSH([C++])
    save_CXXFLAGS="$CXXFLAGS"
    CXXFLAGS="$CXXFLAGS -Werror $1"
    AC_COMPILE_IFELSE([AC_LANG_PROGRAM([$4], [])], [AS_VAR_SET([cache], [yes])], [AS_VAR_SET([cache], [no])])
    CXXFLAGS="$save_CXXFLAGS"
    AC_LANG_POP([C++])])
  AS_VAR_IF([cache], [yes], [$2], [$3])
  AS_VAR_POPDEF([cache])
])
