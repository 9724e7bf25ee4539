//! The dedup index's tables. Each is probed at random once or more per text and outgrows
//! the caches on a real corpus, so each is one flat array of small slots whose slot for a
//! key can be prefetched before it is probed (std's `HashMap` cannot be asked for that),
//! and whatever grows with the corpus is stored in fixed segments.

/// No entry.
pub(super) const NONE: u32 = u32::MAX;

/// Asks for the cache line at `p` to be loaded (a hint; independent loads overlap).
#[inline]
#[allow(unsafe_code)]
fn prefetch<T>(p: *const T) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: prefetching is a hint and never faults; callers pass addresses of live slots.
    unsafe {
        std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>(p.cast());
    }
    #[cfg(not(target_arch = "x86_64"))]
    std::hint::black_box(p);
}

/// Exact dedup keys (128-bit hashes of the key text) → kept index.
///
/// Slots are `[key.0, key.1's low half << 32 | kept index + 1]`: 96 bits of the key
/// confirm a match (a false match is about 2^-96 per pair), and an all-zero slot is empty,
/// so a new table is zeroed memory. Linear probing at most half full; the home slot comes
/// from `key.0`, already a uniform hash.
pub(super) struct ExactTable {
    slots: Vec<[u64; 2]>,
    len: usize,
}

impl ExactTable {
    pub(super) fn new() -> Self {
        ExactTable {
            slots: vec![[0; 2]; 1024],
            len: 0,
        }
    }

    #[inline]
    fn home(&self, key: (u64, u64)) -> usize {
        key.0 as usize & (self.slots.len() - 1)
    }

    pub(super) fn prefetch(&self, key: (u64, u64)) {
        prefetch(&self.slots[self.home(key)]);
    }

    /// The slot of `key`: where it is, or the empty slot where it would go.
    #[inline]
    fn find(&self, key: (u64, u64)) -> usize {
        let m = self.slots.len() - 1;
        let mut i = self.home(key);
        loop {
            let [a, b] = self.slots[i];
            if b as u32 == 0 || (a == key.0 && (b >> 32) as u32 == key.1 as u32) {
                return i;
            }
            i = (i + 1) & m;
        }
    }

    /// The kept index of `key`.
    pub(super) fn get(&self, key: (u64, u64)) -> Option<u32> {
        match self.slots[self.find(key)][1] as u32 {
            0 => None,
            n => Some(n - 1),
        }
    }

    /// Adds `key` (not present yet) as kept index `idx`.
    pub(super) fn insert(&mut self, key: (u64, u64), idx: u32) {
        if (self.len + 1) * 2 > self.slots.len() {
            self.grow(self.slots.len() * 2);
        }
        let i = self.find(key);
        debug_assert_eq!(self.slots[i][1] as u32, 0, "key already present");
        self.slots[i] = [key.0, (key.1 & 0xFFFF_FFFF) << 32 | (idx as u64 + 1)];
        self.len += 1;
    }

    pub(super) fn reserve(&mut self, extra: usize) {
        let need = (self.len + extra) * 2;
        if need > self.slots.len() {
            self.grow(need.next_power_of_two());
        }
    }

    fn grow(&mut self, cap: usize) {
        let old = std::mem::replace(&mut self.slots, vec![[0; 2]; cap]);
        let m = cap - 1;
        for slot in old {
            if slot[1] as u32 != 0 {
                let mut i = slot[0] as usize & m;
                while self.slots[i][1] as u32 != 0 {
                    i = (i + 1) & m;
                }
                self.slots[i] = slot;
            }
        }
    }
}

/// LSH buckets: band key → newest entry, and per entry its band key and the next older
/// entry of its bucket.
///
/// The bucket table is probed at random once per band of every text, and on a real corpus
/// it outgrows the caches, so its slots are kept to 8 bytes: a 32-bit tag (the key's high
/// half, which also picks the home slot, so growing needs no other memory) and the head
/// entry. A tag match is confirmed against the low half of the key kept in the entry,
/// which the chain walk loads anyway. Open addressing with
/// linear probing over one flat array, so that the slots of a window of texts can be
/// prefetched together (their cache misses overlap) before they are probed.
pub(super) struct BucketTable {
    /// `tag << 32 | head entry`; 0 (tag 0) marks an empty slot, so that a new table is
    /// zeroed memory, which the allocator hands out without writing it.
    slots: Vec<u64>,
    /// Per entry: (low half of the band key, next older entry of the same bucket). With
    /// the tag, the low half confirms a bucket's key: 8 bytes an entry instead of 16.
    entries: Chunked<(u32, u32)>,
    len: usize,
}

impl BucketTable {
    pub(super) fn new() -> Self {
        BucketTable {
            slots: vec![0; 1024],
            entries: Chunked::default(),
            len: 0,
        }
    }

    /// The key's high half with its top bit set (so never 0): a bucket is told apart by
    /// this and the key's low half, 63 bits of the key. Two band keys that share those
    /// only share candidates, which are checked against the full signature anyway.
    #[inline]
    fn tag(key: u64) -> u32 {
        (key >> 32) as u32 | 0x8000_0000
    }

    /// A slot as (tag, head entry).
    #[inline]
    fn unpack(slot: u64) -> (u32, u32) {
        ((slot >> 32) as u32, slot as u32)
    }

    #[inline]
    fn mask(&self) -> usize {
        self.slots.len() - 1
    }

    /// Asks for the first slot of every key to be brought into cache (independent loads:
    /// their misses overlap).
    #[inline]
    pub(super) fn prefetch(&self, keys: &[u64]) {
        let m = self.mask();
        for &k in keys {
            prefetch(&self.slots[Self::tag(k) as usize & m]);
        }
    }

    /// The slot of `key`: where it is, or the empty slot where it would go.
    #[inline]
    fn find(&self, key: u64) -> usize {
        let tag = Self::tag(key);
        let m = self.mask();
        let mut i = tag as usize & m;
        loop {
            let (t, head) = Self::unpack(self.slots[i]);
            if t == 0 || (t == tag && self.entries.get(head as usize).0 == key as u32) {
                return i;
            }
            i = (i + 1) & m;
        }
    }

    /// The newest entry of `key`'s bucket, or `NONE`.
    pub(super) fn get(&self, key: u64) -> u32 {
        match Self::unpack(self.slots[self.find(key)]) {
            (0, _) => NONE,
            (_, head) => head,
        }
    }

    /// The entry after `e` in its bucket (older), or `NONE`.
    #[inline]
    pub(super) fn older(&self, e: u32) -> u32 {
        self.entries.get(e as usize).1
    }

    /// Number of entries (the next entry's index).
    pub(super) fn entries(&self) -> usize {
        self.entries.len()
    }

    /// Appends an entry to `key`'s bucket, as its newest.
    pub(super) fn push(&mut self, key: u64) {
        if (self.len + 1) * 4 > self.slots.len() * 3 {
            self.grow(self.slots.len() * 2);
        }
        let e = self.entries.len() as u32;
        let i = self.find(key);
        let older = match Self::unpack(self.slots[i]) {
            (0, _) => {
                self.len += 1;
                NONE
            }
            (_, head) => head,
        };
        self.slots[i] = (Self::tag(key) as u64) << 32 | e as u64;
        self.entries.push((key as u32, older));
    }

    pub(super) fn reserve(&mut self, extra_entries: usize) {
        let need = (self.len + extra_entries) * 4 / 3 + 1;
        if need > self.slots.len() {
            self.grow(need.next_power_of_two());
        }
    }

    fn grow(&mut self, cap: usize) {
        let old = std::mem::replace(&mut self.slots, vec![0; cap]);
        let m = cap - 1;
        for slot in old {
            if slot != 0 {
                let mut i = (slot >> 32) as usize & m;
                while self.slots[i] != 0 {
                    i = (i + 1) & m;
                }
                self.slots[i] = slot;
            }
        }
    }
}

/// Append-only storage in fixed segments: growing never copies what is stored. The index
/// grows while a corpus streams through it; doubling a vector of tens of MB copied it all
/// and, while it did, held the old and the new copy at once (a peak RSS spike).
struct Chunked<T> {
    segments: Vec<Vec<T>>,
    len: usize,
}

impl<T> Default for Chunked<T> {
    fn default() -> Self {
        Chunked {
            segments: Vec::new(),
            len: 0,
        }
    }
}

impl<T: Copy> Chunked<T> {
    const SHIFT: u32 = 16;

    fn push(&mut self, v: T) {
        if self.len >> Self::SHIFT == self.segments.len() {
            self.segments.push(Vec::with_capacity(1 << Self::SHIFT));
        }
        self.segments[self.len >> Self::SHIFT].push(v);
        self.len += 1;
    }

    #[inline]
    fn get(&self, i: usize) -> T {
        self.segments[i >> Self::SHIFT][i & ((1 << Self::SHIFT) - 1)]
    }

    fn len(&self) -> usize {
        self.len
    }
}

/// Signatures of `n` values each, in segments of whole signatures (see [`Chunked`]).
pub(super) struct SigStore {
    n: usize,
    segments: Vec<Vec<u32>>,
    count: u32,
}

impl SigStore {
    /// Signatures per segment.
    const PER_SEGMENT: u32 = 4096;

    pub(super) fn new(n: usize) -> Self {
        SigStore {
            n,
            segments: Vec::new(),
            count: 0,
        }
    }

    /// Stores a signature; returns its number.
    pub(super) fn push(&mut self, sig: &[u32]) -> u32 {
        debug_assert_eq!(sig.len(), self.n);
        if self.count.is_multiple_of(Self::PER_SEGMENT) {
            self.segments
                .push(Vec::with_capacity(Self::PER_SEGMENT as usize * self.n));
        }
        self.segments
            .last_mut()
            .expect("a segment")
            .extend_from_slice(sig);
        self.count += 1;
        self.count - 1
    }

    pub(super) fn get(&self, i: u32) -> &[u32] {
        let seg = &self.segments[(i / Self::PER_SEGMENT) as usize];
        let at = (i % Self::PER_SEGMENT) as usize * self.n;
        &seg[at..at + self.n]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// The exact table answers as a map does, through its grows, for keys that share
        /// their home slot or their first half.
        #[test]
        fn exact_table_matches_a_map(keys in proptest::collection::vec((0u64..64, 0u64..4), 0..3000)) {
            let mut table = ExactTable::new();
            let mut oracle = std::collections::BTreeMap::new();
            for (i, &(a, b)) in keys.iter().enumerate() {
                // Spread over the table and into the second half, as real hashes are.
                let key = (a << 20 | a, b << 40 | b);
                prop_assert_eq!(table.get(key), oracle.get(&key).copied());
                if let std::collections::btree_map::Entry::Vacant(e) = oracle.entry(key) {
                    table.insert(key, i as u32);
                    e.insert(i as u32);
                }
            }
            for (&key, &idx) in &oracle {
                prop_assert_eq!(table.get(key), Some(idx));
            }
        }
    }

    #[test]
    fn exact_table_reserve_keeps_what_it_holds() {
        let mut table = ExactTable::new();
        for i in 0..100u64 {
            table.insert((i.wrapping_mul(0x9E37_79B9_7F4A_7C15), i), i as u32);
        }
        table.reserve(100_000);
        for i in 0..100u64 {
            assert_eq!(
                table.get((i.wrapping_mul(0x9E37_79B9_7F4A_7C15), i)),
                Some(i as u32)
            );
        }
        assert_eq!(table.get((1, 1)), None);
    }
}
