// bprust [SECONDS]: spends SECONDS of CPU (default 0.4) in
// bprust::hot::crunch.  Built with -C symbol-mangling-version=v0, so the
// profile shows it only if the v0 symbol is demangled.

#[repr(C)]
struct Timespec {
    tv_sec: i64,
    tv_nsec: i64,
}

extern "C" {
    fn clock_gettime(clock: i32, ts: *mut Timespec) -> i32;
}

const CLOCK_THREAD_CPUTIME_ID: i32 = 3;

fn thread_cpu() -> f64 {
    let mut ts = Timespec { tv_sec: 0, tv_nsec: 0 };
    unsafe {
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &mut ts);
    }
    ts.tv_sec as f64 + ts.tv_nsec as f64 / 1e9
}

mod hot {
    #[inline(never)]
    pub fn crunch(n: u64, seed: u64) -> u64 {
        let mut x = seed;
        let mut i = 0;
        while i < n {
            x = x.wrapping_mul(2654435761).wrapping_add(i);
            i += 1;
        }
        x
    }
}

fn main() {
    let secs: f64 = match std::env::args().nth(1) {
        Some(s) => s.parse().expect("bprust: bad SECONDS"),
        None => 0.4,
    };
    let end = thread_cpu() + secs;
    let mut acc = 0u64;
    loop {
        acc ^= hot::crunch(100_000, acc);
        if thread_cpu() >= end {
            break;
        }
    }
    std::process::exit(if acc == 1 { 3 } else { 0 });
}
