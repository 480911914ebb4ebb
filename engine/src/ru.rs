//! Request Units: a meter of the work a request really did, turned into a charge by one formula.
//! The constants and their calibration against the seeds' published figures are in `RU.md`.

/// The work one request did. Every operation fills one; nothing sets a charge directly.
#[derive(Debug, Default, Clone, Copy, PartialEq)]
pub struct Meter {
    /// Items loaded from storage and the bytes of their stored form.
    pub items_read: u64,
    pub bytes_read: u64,
    /// Items loaded by scans (queries, partition reads, read feeds) and their bytes: cheaper per
    /// item than point reads, whose cost is dominated by the per-request path.
    pub items_scanned: u64,
    pub bytes_scanned: u64,
    /// Items written (created, replaced or deleted) and the bytes written.
    pub items_written: u64,
    pub bytes_written: u64,
    /// Index terms added or removed by writes (one per indexed scalar path value).
    pub index_terms_written: u64,
    /// Index entries scanned by queries.
    pub index_terms_read: u64,
    /// Physical partitions a request visited.
    pub partitions_visited: u64,
    /// Queries: a base per query page, so an empty result still costs something.
    pub queries: u64,
    /// Calls of JavaScript user-defined functions (`udf.name(...)`) by queries.
    pub udf_calls: u64,
    /// JavaScript work of stored procedures and post-triggers, in QuickJS interrupt ticks
    /// (one per 10 000 jumps and calls of the interpreter: a count of work, not of time, so
    /// the same call costs the same on every machine).
    pub script_ticks: u64,
}

/// The formula's constants in one place (see RU.md for where each comes from).
pub mod rate {
    /// A point read of an item up to 1 KB costs 1 RU (Cosmos DB's definition of the unit).
    pub const READ_ITEM: f64 = 1.0;
    /// Each further KB read: a 100 KB read costs about 10 RU.
    pub const READ_PER_KB: f64 = 0.09;
    /// The fixed part of a write: durable commit, log record, replication in Cosmos DB.
    pub const WRITE_ITEM: f64 = 4.3;
    /// Each item loaded by a scan (query, partition read, read feed).
    pub const SCAN_ITEM: f64 = 0.05;
    /// Each KB loaded by a scan.
    pub const SCAN_PER_KB: f64 = 0.05;
    /// Each KB written beyond the first.
    pub const WRITE_PER_KB: f64 = 0.45;
    /// Each index term added or removed.
    pub const INDEX_TERM: f64 = 0.45;
    /// Each index entry a query scans.
    pub const INDEX_SCAN: f64 = 0.01;
    /// Each physical partition a change-feed or read-feed page visits beyond the first. (A
    /// query pays its whole base in every partition it visits: RU.md, "Fan-out queries".)
    pub const PARTITION_VISIT: f64 = 1.0;
    /// Base cost of a query page, in each physical partition it visits.
    pub const QUERY: f64 = 5.0;
    /// Each call of a JavaScript user-defined function: an interpreter entry and exit, about
    /// what scanning a 1 KB item costs.
    pub const UDF_CALL: f64 = 0.1;
    /// Each QuickJS interrupt tick of a script's own JavaScript beyond its first (about a
    /// tenth of a millisecond of interpreter time): Cosmos DB bills script CPU too (RU.md,
    /// "Stored procedures and triggers"). Priced so that a script spinning on the writer costs
    /// its partition more than a 400 RU/s budget refills (~5 000 RU per CPU-second), since
    /// every other write waits on it.
    pub const SCRIPT_TICK: f64 = 0.5;
}

impl Meter {
    pub fn add(&mut self, other: &Meter) {
        self.items_read += other.items_read;
        self.bytes_read += other.bytes_read;
        self.items_scanned += other.items_scanned;
        self.bytes_scanned += other.bytes_scanned;
        self.items_written += other.items_written;
        self.bytes_written += other.bytes_written;
        self.index_terms_written += other.index_terms_written;
        self.index_terms_read += other.index_terms_read;
        self.partitions_visited += other.partitions_visited;
        self.queries += other.queries;
        self.udf_calls += other.udf_calls;
        self.script_ticks += other.script_ticks;
    }

    /// Records the load of one stored item of `bytes` bytes.
    pub fn read_item(&mut self, bytes: usize) {
        self.items_read += 1;
        self.bytes_read += bytes as u64;
    }

    /// Records one item loaded by a scan.
    pub fn scan_item(&mut self, bytes: usize) {
        self.items_scanned += 1;
        self.bytes_scanned += bytes as u64;
    }

    /// Records a write of one item: `bytes` written, `terms` index terms touched.
    pub fn write_item(&mut self, bytes: usize, terms: u64) {
        self.items_written += 1;
        self.bytes_written += bytes as u64;
        self.index_terms_written += terms;
    }

    /// The request charge, rounded to hundredths as Cosmos DB reports it.
    pub fn charge(&self) -> f64 {
        let kb = |b: u64| b as f64 / 1024.0;
        let reads = if self.items_read == 0 {
            0.0
        } else {
            self.items_read as f64 * rate::READ_ITEM
                + (kb(self.bytes_read) - self.items_read as f64).max(0.0) * rate::READ_PER_KB
        };
        let writes = if self.items_written == 0 {
            0.0
        } else {
            self.items_written as f64 * rate::WRITE_ITEM
                + (kb(self.bytes_written) - self.items_written as f64).max(0.0) * rate::WRITE_PER_KB
                + self.index_terms_written as f64 * rate::INDEX_TERM
        };
        let scans = self.items_scanned as f64 * rate::SCAN_ITEM
            + kb(self.bytes_scanned) * rate::SCAN_PER_KB;
        let queries = self.queries as f64 * rate::QUERY
            + self.index_terms_read as f64 * rate::INDEX_SCAN
            + self.partitions_visited.saturating_sub(1) as f64 * rate::PARTITION_VISIT
            + self.udf_calls as f64 * rate::UDF_CALL;
        let scripts = self.script_ticks as f64 * rate::SCRIPT_TICK;
        let total = reads + scans + writes + queries + scripts;
        // A request that did anything costs at least 1 RU, and a failed one that did nothing
        // (rejected before storage was touched) still costs the minimum.
        (total.max(1.0) * 100.0).round() / 100.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_kb_point_read_is_one_ru() {
        let mut m = Meter::default();
        m.read_item(1024);
        assert_eq!(m.charge(), 1.0);
        let mut m = Meter::default();
        m.read_item(100 * 1024);
        assert!((9.0..11.0).contains(&m.charge()), "{}", m.charge());
    }

    #[test]
    fn charge_grows_with_work() {
        let mut small = Meter::default();
        small.write_item(500, 3);
        let mut big = Meter::default();
        big.write_item(50_000, 30);
        assert!(big.charge() > small.charge() * 3.0);
    }
}
