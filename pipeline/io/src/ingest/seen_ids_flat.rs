//! Duplicate record ids within a source in bounded memory, for corpora of any size: the
//! ids since the last spill in a hash table (at most [`MEM_IDS`] ids or [`MEM_ID_BYTES`] of
//! id bytes), the earlier ones on disk in runs sorted by a 64-bit hash of the id. A run is
//! a temporary file (anonymous: removed when dropped, and by the system if the process
//! dies) sealed like the release runner's spill (`crate::spill_crypt::SpillFile`: the ids are from
//! before the `pii` stage), with a Bloom filter and a sparse index (every [`BLOCK`]-th
//! entry's hash and offset) in memory: an id a run does not hold touches its disk only on
//! a Bloom false positive (about 0.5%), and then one block. Runs merge as a binary counter
//! (two runs of one level make one of the next), so at most log2(ids / [`MEM_IDS`]) + 1
//! runs exist and each id is rewritten that many times at most. In memory, per id spilled:
//! the Bloom filter's 12 bits and the index's 16 bytes per block, about 1.8 bytes.
//!
//! Exact: a verdict compares the id bytes, never only hashes, so two ids with one hash are
//! two ids (`hash` is a parameter so the tests can make every id collide). The first
//! record of an id stays the one named, as in the plain form (`seen_ids.rs`, the oracle of
//! the property test below).

use super::{Malformed, Problem};
use crate::spill_crypt::SpillFile;
use kcurate_core::record::Record;
use std::io::{Read, Write};
use std::path::PathBuf;
use std::sync::Arc;

/// Ids held in memory before they are written as a run.
const MEM_IDS: usize = 1 << 19;
/// Id bytes held in memory before they are written as a run.
const MEM_ID_BYTES: usize = 16 << 20;
/// Entries of a run per block of its sparse index (a lookup reads one block, ~2 KB).
const BLOCK: u64 = 64;
/// Bloom filter bits per id of a run.
const BLOOM_BITS: u64 = 12;
/// A run entry's fixed part: hash (8), file (4), line (8), id length (4), then the id.
const HEAD: usize = 24;

/// The quarantine of a record whose id the record at `first` (`file:line`) has.
pub(super) fn duplicate(r: &Record, first: &str) -> Malformed {
    Malformed {
        file: r.origin.file.to_string(),
        line: r.origin.line,
        field: "id".into(),
        reason: format!(
            "duplicate record id {:?}: the record at {first} has it; this one is quarantined",
            r.id
        ),
        kind: Problem::DuplicateId,
    }
}

/// SipHash with fixed keys: the hashes live only as long as this process, and only order
/// and filter the runs (a verdict compares the ids).
fn sip(id: &[u8]) -> u64 {
    use std::hash::Hasher;
    let mut h = std::hash::DefaultHasher::new();
    h.write(id);
    h.finish()
}

/// The ids a source's records had so far (see the module doc), to find a second record with
/// an id already used.
pub(super) struct SeenIds {
    /// The source's files in the order they were read (an entry names its file by index).
    files: Vec<Arc<str>>,
    /// The ids since the last spill: indices into `entries`, by hash.
    table: hashbrown::HashTable<u32>,
    entries: Vec<Entry>,
    /// The bytes of `entries`' ids, one after the other.
    ids: Vec<u8>,
    runs: Vec<Run>,
    /// Where the runs' files are made.
    dir: PathBuf,
    hash: fn(&[u8]) -> u64,
    max_ids: usize,
    max_id_bytes: usize,
    /// Entries per block of a run's index ([`BLOCK`]; fewer in tests).
    block_len: u64,
    /// A block read back.
    block: Vec<u8>,
}

/// An id held in memory: its hash, first place, and where its bytes end in `ids`.
struct Entry {
    hash: u64,
    line: u64,
    file: u32,
    end: u32,
}

/// An entry read back from a run.
struct Owned {
    hash: u64,
    file: u32,
    line: u64,
    id: Vec<u8>,
}

/// A run on disk with what finds an id in it.
struct Run {
    file: SpillFile,
    /// Its level in the binary counter: it holds about `MEM_IDS << level` ids.
    level: u32,
    len: u64,
    /// The file's length in bytes.
    bytes: u64,
    /// Hash and byte offset of the first entry of every block (see [`BLOCK`]).
    index: Vec<(u64, u64)>,
    bloom: Bloom,
}

impl SeenIds {
    /// An empty set whose runs go in `dir` (the run's temporary directory).
    pub(super) fn new(dir: PathBuf) -> Self {
        Self::with_limits(dir, (MEM_IDS, MEM_ID_BYTES, BLOCK), sip)
    }

    /// `limits`: ids and id bytes in memory, entries per block.
    fn with_limits(dir: PathBuf, limits: (usize, usize, u64), hash: fn(&[u8]) -> u64) -> Self {
        let (max_ids, max_id_bytes, block_len) = limits;
        SeenIds {
            files: Vec::new(),
            table: hashbrown::HashTable::new(),
            entries: Vec::new(),
            ids: Vec::new(),
            runs: Vec::new(),
            dir,
            hash,
            max_ids: max_ids.clamp(1, u32::MAX as usize),
            max_id_bytes: max_id_bytes.min(u32::MAX as usize / 2),
            block_len: block_len.max(1),
            block: Vec::new(),
        }
    }

    /// The duplicate-id problem of `r`, when an earlier record of the source had its id; a
    /// [`Problem::Source`] when the runs cannot be written or read (the run stops).
    pub(super) fn check(&mut self, r: &Record) -> Option<Malformed> {
        if !self
            .files
            .last()
            .is_some_and(|f| Arc::ptr_eq(f, &r.origin.file))
        {
            self.files.push(r.origin.file.clone());
        }
        let file = (self.files.len() - 1) as u32;
        let id = r.id.as_bytes();
        let hash = (self.hash)(id);
        let (entries, ids) = (&self.entries, &self.ids);
        let id_of = |i: u32| {
            let start = i.checked_sub(1).map_or(0, |p| entries[p as usize].end) as usize;
            &ids[start..entries[i as usize].end as usize]
        };
        let found = self
            .table
            .find(hash, |&i| {
                entries[i as usize].hash == hash && id_of(i) == id
            })
            .map(|&i| (entries[i as usize].file, entries[i as usize].line));
        let found = match found {
            Some(f) => Some(f),
            None => match self.find_on_disk(hash, id) {
                Ok(f) => f,
                Err(e) => return Some(self.spill_error(r, "read", e)),
            },
        };
        if let Some((f, line)) = found {
            return Some(duplicate(r, &format!("{}:{line}", self.files[f as usize])));
        }
        let i = self.entries.len() as u32;
        self.ids.extend_from_slice(id);
        self.entries.push(Entry {
            hash,
            line: r.origin.line,
            file,
            end: self.ids.len() as u32,
        });
        let entries = &self.entries;
        self.table
            .insert_unique(hash, i, |&i| entries[i as usize].hash);
        if (self.entries.len() >= self.max_ids || self.ids.len() >= self.max_id_bytes)
            && let Err(e) = self.spill()
        {
            return Some(self.spill_error(r, "write", e));
        }
        None
    }

    fn spill_error(&self, r: &Record, doing: &str, e: std::io::Error) -> Malformed {
        Malformed {
            file: r.origin.file.to_string(),
            line: r.origin.line,
            field: "id".into(),
            reason: format!(
                "cannot {doing} the ids kept on disk to find duplicates (in {}): {e}",
                self.dir.display()
            ),
            kind: Problem::Source,
        }
    }

    /// The first place of `id` in the runs.
    fn find_on_disk(&mut self, hash: u64, id: &[u8]) -> std::io::Result<Option<(u32, u64)>> {
        for run in &self.runs {
            if let Some(f) = run.find(hash, id, &mut self.block)? {
                return Ok(Some(f));
            }
        }
        Ok(None)
    }

    /// Writes the ids in memory as a run, then merges runs of equal level.
    fn spill(&mut self) -> std::io::Result<()> {
        let mut order: Vec<u32> = (0..self.entries.len() as u32).collect();
        order.sort_unstable_by_key(|&i| (self.entries[i as usize].hash, i));
        let (entries, ids) = (&self.entries, &self.ids);
        let sorted = order.iter().map(|&i| {
            let e = &entries[i as usize];
            let start = i.checked_sub(1).map_or(0, |p| entries[p as usize].end) as usize;
            Ok(Owned {
                hash: e.hash,
                file: e.file,
                line: e.line,
                id: ids[start..e.end as usize].to_vec(),
            })
        });
        let level0 = (0, order.len() as u64, self.block_len);
        let run = Run::write(&self.dir, level0, sorted)?;
        self.runs.push(run);
        self.table.clear();
        self.entries.clear();
        self.ids.clear();
        while let [.., a, b] = &self.runs[..]
            && a.level == b.level
        {
            let mut b = self.runs.pop().expect("two runs");
            let mut a = self.runs.pop().expect("two runs");
            let merged = {
                let mut xs = a.entries()?.peekable();
                let mut ys = b.entries()?.peekable();
                let merged = std::iter::from_fn(|| {
                    let take_x = match (xs.peek(), ys.peek()) {
                        (None, None) => return None,
                        (Some(Ok(x)), Some(Ok(y))) => x.hash <= y.hash,
                        (Some(_), None) | (Some(Err(_)), _) => true,
                        (None, Some(_)) | (_, Some(Err(_))) => false,
                    };
                    if take_x { xs.next() } else { ys.next() }
                });
                let shape = (a.level + 1, a.len + b.len, self.block_len);
                Run::write(&self.dir, shape, merged)?
            };
            self.runs.push(merged);
        }
        Ok(())
    }
}

impl Run {
    /// Writes `entries` (`len` of them, in hash order) as a run of `level`, indexed every
    /// `block_len` entries.
    fn write(
        dir: &std::path::Path,
        (level, len, block_len): (u32, u64, u64),
        entries: impl Iterator<Item = std::io::Result<Owned>>,
    ) -> std::io::Result<Run> {
        let mut w = SpillFile::unnamed_in(dir)?;
        let mut bloom = Bloom::new(len);
        let mut index = Vec::with_capacity(len.div_ceil(block_len) as usize);
        let (mut n, mut bytes) = (0u64, 0u64);
        for e in entries {
            let e = e?;
            if n.is_multiple_of(block_len) {
                index.push((e.hash, bytes));
            }
            bloom.insert(e.hash);
            w.write_all(&e.hash.to_le_bytes())?;
            w.write_all(&e.file.to_le_bytes())?;
            w.write_all(&e.line.to_le_bytes())?;
            w.write_all(&(e.id.len() as u32).to_le_bytes())?;
            w.write_all(&e.id)?;
            n += 1;
            bytes += (HEAD + e.id.len()) as u64;
        }
        w.finish()?;
        debug_assert_eq!(n, len);
        Ok(Run {
            file: w,
            level,
            len: n,
            bytes,
            index,
            bloom,
        })
    }

    /// The run's entries in order, read back from its start.
    fn entries(&mut self) -> std::io::Result<impl Iterator<Item = std::io::Result<Owned>> + use<>> {
        let mut r = self.file.reader()?;
        let mut left = self.len;
        Ok(std::iter::from_fn(move || {
            if left == 0 {
                return None;
            }
            left -= 1;
            let mut head = [0u8; HEAD];
            Some(r.read_exact(&mut head).and_then(|()| {
                let (hash, file, line, n) = parse_head(&head);
                let mut id = vec![0u8; n];
                r.read_exact(&mut id)?;
                Ok(Owned {
                    hash,
                    file,
                    line,
                    id,
                })
            }))
        }))
    }

    /// The place of `id` (hashed `hash`) in this run, if it holds it.
    fn find(
        &self,
        hash: u64,
        id: &[u8],
        block: &mut Vec<u8>,
    ) -> std::io::Result<Option<(u32, u64)>> {
        if !self.bloom.may_hold(hash) {
            return Ok(None);
        }
        // Entries of `hash` may start in the block before the first one that starts with it.
        let mut b = self
            .index
            .partition_point(|(h, _)| *h < hash)
            .saturating_sub(1);
        while let Some(&(_, start)) = self.index.get(b) {
            let end = self.index.get(b + 1).map_or(self.bytes, |x| x.1);
            block.resize((end - start) as usize, 0);
            self.file.read_at(start, block)?;
            let mut at = 0;
            while at < block.len() {
                let head: &[u8; HEAD] = block[at..at + HEAD].try_into().expect("a whole head");
                let (h, file, line, n) = parse_head(head);
                let this = &block[at + HEAD..at + HEAD + n];
                if h > hash {
                    return Ok(None);
                }
                if h == hash && this == id {
                    return Ok(Some((file, line)));
                }
                at += HEAD + n;
            }
            b += 1;
        }
        Ok(None)
    }
}

/// Hash, file, line and id length of an entry's head.
fn parse_head(head: &[u8; HEAD]) -> (u64, u32, u64, usize) {
    let u64_at = |i: usize| u64::from_le_bytes(head[i..i + 8].try_into().expect("8 bytes"));
    let u32_at = |i: usize| u32::from_le_bytes(head[i..i + 4].try_into().expect("4 bytes"));
    (u64_at(0), u32_at(8), u64_at(12), u32_at(20) as usize)
}

/// A blocked Bloom filter: each hash sets 7 bits of one 512-bit block (one cache line).
struct Bloom {
    blocks: Vec<[u64; 8]>,
}

impl Bloom {
    /// Sized for `n` hashes at [`BLOOM_BITS`] bits each.
    fn new(n: u64) -> Self {
        Bloom {
            blocks: vec![[0; 8]; (n * BLOOM_BITS).div_ceil(512).max(1) as usize],
        }
    }

    /// The block of `hash` and the 7 bits (0..512) it sets there.
    fn bits(&self, hash: u64) -> (usize, impl Iterator<Item = usize> + use<>) {
        let block = ((u128::from(hash) * self.blocks.len() as u128) >> 64) as usize;
        // splitmix64's finaliser: the bits within the block independent of the block.
        let mut g = hash.wrapping_add(0x9E37_79B9_7F4A_7C15);
        g = (g ^ (g >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        g = (g ^ (g >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        g ^= g >> 31;
        (block, (0..7).map(move |k| ((g >> (9 * k)) & 511) as usize))
    }

    fn insert(&mut self, hash: u64) {
        let (b, bits) = self.bits(hash);
        for bit in bits {
            self.blocks[b][bit / 64] |= 1 << (bit % 64);
        }
    }

    fn may_hold(&self, hash: u64) -> bool {
        let (b, mut bits) = self.bits(hash);
        bits.all(|bit| self.blocks[b][bit / 64] & (1 << (bit % 64)) != 0)
    }
}

#[cfg(test)]
mod tests;
