//! What is built on an engine and lives as long as its owner holds it (change-feed processors),
//! listed for status pages. Kept as `Any` so the client layer does not depend on the layers
//! built on top of it; each layer downcasts to its own type.

use std::any::Any;
use std::sync::{Arc, Weak};

use parking_lot::Mutex;

type Entry = Weak<dyn Any + Send + Sync>;

#[derive(Default)]
pub(crate) struct Registry(Mutex<Vec<Entry>>);

impl Registry {
    /// Remembers `item` until the last strong handle to it is dropped.
    pub(crate) fn register<T: Any + Send + Sync>(&self, item: &Arc<T>) {
        let weak: Weak<T> = Arc::downgrade(item);
        let mut all = self.0.lock();
        all.retain(|w| w.strong_count() > 0);
        all.push(weak);
    }

    /// The registered items of type `T` still held by someone, oldest first.
    pub(crate) fn live<T: Any + Send + Sync>(&self) -> Vec<Arc<T>> {
        let mut all = self.0.lock();
        all.retain(|w| w.strong_count() > 0);
        all.iter()
            .filter_map(Weak::upgrade)
            .filter_map(|a| a.downcast::<T>().ok())
            .collect()
    }
}
