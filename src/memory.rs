//! How much memory the process holds and the machine has, for the search's
//! memory budget, and the sizes a person writes (`8G`, `512M`).
//!
//! Read from Linux's `/proc`; on a system without it the process's memory is
//! unknown and no budget can be kept (the command line says so).

/// The process's resident set size, in bytes.
pub fn resident_bytes() -> Option<u64> {
    kib_field(
        &std::fs::read_to_string("/proc/self/status").ok()?,
        "VmRSS:",
    )
}

/// The machine's physical memory, in bytes.
pub fn physical_bytes() -> Option<u64> {
    kib_field(&std::fs::read_to_string("/proc/meminfo").ok()?, "MemTotal:")
}

/// The memory the process may use: the machine's, or less where a control
/// group limits it (a container), as cgroup v2 or v1 says.
pub fn available_bytes() -> Option<u64> {
    let limit = [
        "/sys/fs/cgroup/memory.max",
        "/sys/fs/cgroup/memory/memory.limit_in_bytes",
    ]
    .iter()
    .filter_map(|file| std::fs::read_to_string(file).ok())
    .filter_map(|text| text.trim().parse::<u64>().ok())
    .min();
    match (physical_bytes(), limit) {
        (Some(physical), Some(limit)) => Some(physical.min(limit)),
        (physical, limit) => physical.or(limit),
    }
}

/// The memory budget a search gets unless told otherwise: half of what the
/// process may use ([`available_bytes`]), and no more than 8 GiB, so that a
/// check never takes the machine (or its container) down with it.
pub fn default_budget() -> u64 {
    const CAP: u64 = 8 << 30;
    available_bytes().map_or(CAP, |total| (total / 2).min(CAP))
}

/// `VmRSS:     1234 kB` -> 1234 * 1024.
fn kib_field(text: &str, field: &str) -> Option<u64> {
    let line = text.lines().find(|line| line.starts_with(field))?;
    let kib: u64 = line[field.len()..]
        .trim()
        .trim_end_matches("kB")
        .trim()
        .parse()
        .ok()?;
    Some(kib * 1024)
}

/// A size in bytes from `123`, `64K`, `512M`, `1.5G` or `2T` (powers of 1024;
/// a trailing `B` or `iB` is allowed).
pub fn parse_size(text: &str) -> Result<u64, String> {
    let expected = || {
        format!(
            "{}: expected a size such as 512M, 8G or 1.5G (K, M, G, T are powers of 1024)",
            crate::text::quoted(text, 40)
        )
    };
    let trimmed = text.trim();
    let lower = trimmed.to_ascii_lowercase();
    let unitless = lower
        .strip_suffix("ib")
        .or_else(|| lower.strip_suffix('b'))
        .unwrap_or(&lower);
    let (number, scale) = match unitless.chars().last() {
        Some('k') => (&unitless[..unitless.len() - 1], 1u64 << 10),
        Some('m') => (&unitless[..unitless.len() - 1], 1 << 20),
        Some('g') => (&unitless[..unitless.len() - 1], 1 << 30),
        Some('t') => (&unitless[..unitless.len() - 1], 1 << 40),
        _ => (unitless, 1),
    };
    let value: f64 = number.trim().parse().map_err(|_| expected())?;
    let bytes = value * scale as f64;
    if !value.is_finite() || value <= 0.0 || bytes >= u64::MAX as f64 {
        return Err(expected());
    }
    Ok(bytes as u64)
}

/// Bytes in the unit a person reads: `1.2 GiB`, `85 MiB`.
pub fn human(bytes: u64) -> String {
    let units = [("GiB", 1u64 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)];
    for (unit, size) in units {
        if bytes >= size {
            let value = bytes as f64 / size as f64;
            return if value < 10.0 {
                format!("{value:.1} {unit}")
            } else {
                format!("{value:.0} {unit}")
            };
        }
    }
    format!("{bytes} B")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_read_as_people_write_them() {
        assert_eq!(parse_size("123"), Ok(123));
        assert_eq!(parse_size("64K"), Ok(64 << 10));
        assert_eq!(parse_size("512m"), Ok(512 << 20));
        assert_eq!(parse_size("1.5G"), Ok(3 << 29));
        assert_eq!(parse_size("2GiB"), Ok(2 << 30));
        assert_eq!(parse_size("8GB"), Ok(8 << 30));
        for bad in ["", "G", "-1G", "0", "lots", "1e30T", "NaN"] {
            assert!(parse_size(bad).is_err(), "{bad:?} was accepted");
        }
    }

    #[test]
    fn the_process_knows_its_memory_on_linux() {
        if cfg!(target_os = "linux") {
            let resident = resident_bytes().expect("VmRSS in /proc/self/status");
            assert!(resident > 0);
            assert!(physical_bytes().expect("MemTotal") > resident);
            let available = available_bytes().expect("a machine has memory");
            assert!(available <= physical_bytes().unwrap());
            assert_eq!(default_budget(), (available / 2).min(8 << 30));
        }
    }

    #[test]
    fn human_sizes() {
        assert_eq!(human(85 << 20), "85 MiB");
        assert_eq!(human(1288490188), "1.2 GiB");
        assert_eq!(human(12), "12 B");
    }
}
