//! LMDB trusts its pages: on a damaged data file it can stop on one of its assertions (SIGABRT)
//! or follow a wild offset (SIGSEGV, SIGBUS) before any check of ours runs. The process then
//! ends here, with a line that names the file (and the page, when the fault is inside its map),
//! exit code 3, and no partial backup left behind, instead of dying by a signal.

use std::ffi::CString;
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::OnceLock;

/// Exit code of a process stopped by a damaged data file.
pub const DAMAGED: i32 = 3;

static HEAD: OnceLock<Vec<u8>> = OnceLock::new();
static TAIL: OnceLock<Vec<u8>> = OnceLock::new();
static PARTIAL: OnceLock<CString> = OnceLock::new();
static MAP_START: AtomicUsize = AtomicUsize::new(0);
static MAP_END: AtomicUsize = AtomicUsize::new(0);

/// Installs the handlers for the data file `file` (before it is opened).
pub fn install(file: &Path) {
    let _ = HEAD.set(format!("error (500): corrupt data: {} is ", file.display()).into_bytes());
    let _ = TAIL.set(
        b"; restore it from a backup (`engine backup`), run `engine check` to see what is damaged\n"
            .to_vec(),
    );
    for sig in [
        libc::SIGSEGV,
        libc::SIGBUS,
        libc::SIGABRT,
        libc::SIGFPE,
        libc::SIGILL,
    ] {
        // Safety: a zeroed sigaction with a handler that only calls async-signal-safe functions
        // (write, unlink, _exit) and reads statics set before it was installed.
        unsafe {
            let mut sa: libc::sigaction = std::mem::zeroed();
            sa.sa_sigaction = on_signal
                as extern "C" fn(libc::c_int, *mut libc::siginfo_t, *mut libc::c_void)
                as *const () as usize;
            sa.sa_flags = libc::SA_SIGINFO | libc::SA_ONSTACK;
            libc::sigemptyset(&mut sa.sa_mask);
            libc::sigaction(sig, &sa, std::ptr::null_mut());
        }
    }
}

/// Records where the data file is mapped (Linux: /proc/self/maps), so a fault inside it can be
/// reported with its page number.
pub fn watch_map(file: &Path) {
    let Ok(file) = file.canonicalize() else {
        return;
    };
    let Ok(maps) = std::fs::read_to_string("/proc/self/maps") else {
        return;
    };
    for line in maps.lines() {
        let mut parts = line.split_whitespace();
        let (Some(range), Some(offset)) = (parts.next(), parts.nth(1)) else {
            continue;
        };
        if parts.nth(2).map(Path::new) != Some(file.as_path())
            || !offset.trim_start_matches('0').is_empty()
        {
            continue;
        }
        if let Some((a, b)) = range.split_once('-') {
            if let (Ok(a), Ok(b)) = (usize::from_str_radix(a, 16), usize::from_str_radix(b, 16)) {
                MAP_START.store(a, Ordering::SeqCst);
                MAP_END.store(b, Ordering::SeqCst);
            }
        }
    }
}

/// A file to remove if the process is stopped (a backup being written).
pub fn remove_on_crash(path: &Path) {
    use std::os::unix::ffi::OsStrExt;
    if let Ok(c) = CString::new(path.as_os_str().as_bytes()) {
        let _ = PARTIAL.set(c);
    }
}

extern "C" fn on_signal(sig: libc::c_int, info: *mut libc::siginfo_t, _ctx: *mut libc::c_void) {
    let write = |b: &[u8]| {
        // Safety: write(2) on stderr is async-signal-safe.
        unsafe { libc::write(2, b.as_ptr().cast(), b.len()) };
    };
    if let Some(h) = HEAD.get() {
        write(h);
    }
    let (start, end) = (
        MAP_START.load(Ordering::Relaxed),
        MAP_END.load(Ordering::Relaxed),
    );
    // Safety: the kernel passes a valid siginfo to an SA_SIGINFO handler.
    let addr = if matches!(sig, libc::SIGSEGV | libc::SIGBUS) && !info.is_null() {
        unsafe { (*info).si_addr() as usize }
    } else {
        0
    };
    let mut buf = [0u8; 20];
    if start != 0 && (start..end).contains(&addr) {
        write(b"damaged near page ");
        write(decimal((addr - start) / 4096, &mut buf));
    } else if sig == libc::SIGABRT {
        write(b"damaged (LMDB stopped on an inconsistency)");
    } else {
        // Outside the file's map: most likely an offset read from a damaged page, but not
        // provably (the signal number is given for whoever digs further).
        write(b"probably damaged (reading it crashed with signal ");
        write(decimal(sig as usize, &mut buf));
        write(b")");
    }
    if let Some(t) = TAIL.get() {
        write(t);
    }
    if let Some(p) = PARTIAL.get() {
        // Safety: unlink(2) is async-signal-safe; the path was set before any copy started.
        unsafe { libc::unlink(p.as_ptr()) };
    }
    // Safety: _exit ends the process without running anything that is not signal-safe.
    unsafe { libc::_exit(DAMAGED) };
}

/// `n` in decimal, without allocating (inside a signal handler).
fn decimal(mut n: usize, buf: &mut [u8; 20]) -> &[u8] {
    let mut i = buf.len();
    loop {
        i -= 1;
        buf[i] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            return &buf[i..];
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::Ordering;

    /// The mapping of a file is found in /proc/self/maps (where a fault's page comes from).
    #[test]
    #[cfg(target_os = "linux")]
    fn the_map_of_a_file_is_found() {
        let tmp = tempfile::tempdir().unwrap();
        let path = tmp.path().join("data.mdb");
        std::fs::write(&path, vec![7u8; 3 * 4096]).unwrap();
        let f = std::fs::File::open(&path).unwrap();
        use std::os::fd::AsRawFd;
        // Safety: a read-only shared map of a file this test owns, unmapped below.
        let p = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                3 * 4096,
                libc::PROT_READ,
                libc::MAP_SHARED,
                f.as_raw_fd(),
                0,
            )
        };
        assert_ne!(p, libc::MAP_FAILED);
        super::watch_map(&path);
        assert_eq!(super::MAP_START.load(Ordering::SeqCst), p as usize);
        assert_eq!(super::MAP_END.load(Ordering::SeqCst), p as usize + 3 * 4096);
        unsafe { libc::munmap(p, 3 * 4096) };
    }

    #[test]
    fn decimal_writes_numbers() {
        let mut buf = [0u8; 20];
        assert_eq!(super::decimal(0, &mut buf), b"0");
        assert_eq!(super::decimal(4096, &mut buf), b"4096");
        assert_eq!(
            super::decimal(usize::MAX, &mut buf),
            usize::MAX.to_string().as_bytes()
        );
    }
}
