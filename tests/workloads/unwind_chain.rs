// The Rust twin of unwind_chain.c, built as a release binary without
// frame pointers: main -> chain_a -> chain_b -> chain_leaf.
// Usage: unwind_rust [CPU_SECONDS]

/// What std::hint::black_box does (stable only since Rust 1.66; Debian
/// 12's rustc is 1.63): a value the optimizer must assume is read and
/// may have changed, so the chain's arithmetic and calls are kept.
#[inline(always)]
fn black_box<T: Copy>(x: T) -> T {
    unsafe { std::ptr::read_volatile(&x) }
}

#[repr(C)]
struct Timespec {
    sec: i64,
    nsec: i64,
}

extern "C" {
    fn clock_gettime(clock: i32, ts: *mut Timespec) -> i32;
}

// CPU seconds of this thread (CLOCK_THREAD_CPUTIME_ID), like workload.h
fn thread_cpu() -> f64 {
    let mut ts = Timespec { sec: 0, nsec: 0 };
    unsafe { clock_gettime(3, &mut ts) };
    ts.sec as f64 + ts.nsec as f64 / 1e9
}

#[inline(never)]
fn chain_leaf(n: u64) -> u64 {
    let mut x: u64 = 1;
    for i in 0..n {
        x = black_box(x.wrapping_mul(2654435761).wrapping_add(i));
    }
    x
}

#[inline(never)]
fn chain_b(n: u64) -> u64 {
    let r = chain_leaf(black_box(n));
    black_box(r ^ n)
}

#[inline(never)]
fn chain_a(n: u64) -> u64 {
    let r = chain_b(black_box(n));
    black_box(r.wrapping_add(n))
}

fn main() {
    let secs: f64 = std::env::args()
        .nth(1)
        .map(|s| s.parse().expect("seconds"))
        .unwrap_or(0.5);
    let end = thread_cpu() + secs;
    let mut acc: u64 = 0;
    while thread_cpu() < end {
        acc = acc.wrapping_add(chain_a(100_000));
    }
    black_box(acc);
}
