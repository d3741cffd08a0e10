//! `MemoryStorage`: the storage adapter that keeps records in a map. For tests, for stores that
//! only live as long as the process, and as the reference behaviour of the `Storage` contract
//! (keys are segment paths; `*_range` take a prefix of segments).

use std::cell::RefCell;
use std::collections::BTreeMap;

use crate::error::Result;
use crate::host::{Storage, StorageKey};

#[derive(Debug, Default)]
pub struct MemoryStorage {
    records: RefCell<BTreeMap<StorageKey, Vec<u8>>>,
}

impl MemoryStorage {
    pub fn new() -> Self {
        Self::default()
    }
    /// Every record, in key order (tests inspect and copy images with it).
    pub fn dump(&self) -> Vec<(StorageKey, Vec<u8>)> {
        self.records.borrow().iter().map(|(k, v)| (k.clone(), v.clone())).collect()
    }
    pub fn from_records(records: impl IntoIterator<Item = (StorageKey, Vec<u8>)>) -> Self {
        MemoryStorage { records: RefCell::new(records.into_iter().collect()) }
    }
    pub fn len(&self) -> usize {
        self.records.borrow().len()
    }
    pub fn is_empty(&self) -> bool {
        self.records.borrow().is_empty()
    }
    /// Total bytes stored.
    pub fn bytes(&self) -> usize {
        self.records.borrow().values().map(Vec::len).sum()
    }
}

fn under(key: &[String], prefix: &[String]) -> bool {
    key.len() >= prefix.len() && key[..prefix.len()] == *prefix
}

impl Storage for MemoryStorage {
    async fn load(&self, key: &[String]) -> Result<Option<Vec<u8>>> {
        Ok(self.records.borrow().get(key).cloned())
    }
    async fn save(&self, key: &[String], data: &[u8]) -> Result<()> {
        self.records.borrow_mut().insert(key.to_vec(), data.to_vec());
        Ok(())
    }
    async fn create(&self, key: &[String], data: &[u8]) -> Result<bool> {
        match self.records.borrow_mut().entry(key.to_vec()) {
            std::collections::btree_map::Entry::Occupied(_) => Ok(false),
            std::collections::btree_map::Entry::Vacant(slot) => {
                slot.insert(data.to_vec());
                Ok(true)
            }
        }
    }
    async fn remove(&self, key: &[String]) -> Result<()> {
        self.records.borrow_mut().remove(key);
        Ok(())
    }
    async fn load_range(&self, prefix: &[String]) -> Result<Vec<(StorageKey, Vec<u8>)>> {
        // Keys that extend `prefix` sort right after it.
        let records = self.records.borrow();
        Ok(records.range(prefix.to_vec()..).take_while(|(k, _)| under(k, prefix)).map(|(k, v)| (k.clone(), v.clone())).collect())
    }
    async fn remove_range(&self, prefix: &[String]) -> Result<()> {
        self.records.borrow_mut().retain(|k, _| !under(k, prefix));
        Ok(())
    }
}
