//! What layers above the catalog keep with a container: the scripts registered on it
//! (`scripts::Scripts`), the queries parsed for it (`client::container`).
//!
//! Kept here, such a value lives exactly as long as the container (one deleted and created again
//! starts with none), with no second map to keep in step with the catalog. Kept as `Any`, one
//! value per type, it leaves the catalog naming none of the layers above it: each owner asks for
//! its own type and gets its own value. The shape of `client::registry`.

use std::any::Any;
use std::sync::Arc;

use parking_lot::RwLock;

type Value = Arc<dyn Any + Send + Sync>;

/// One container's attached values, at most one of each type.
#[derive(Default)]
pub struct Attached(RwLock<Vec<Value>>);

impl Attached {
    /// The container's `T`, made with `T::default()` on first use. Every query asks (for its
    /// parsed text, for the container's functions), so a value found takes only a read lock.
    pub fn get<T: Any + Send + Sync + Default>(&self) -> Arc<T> {
        if let Some(found) = find(&self.0.read()) {
            return found;
        }
        let mut all = self.0.write();
        // Another thread may have made it between the two locks.
        if let Some(found) = find(&all) {
            return found;
        }
        let made = Arc::new(T::default());
        all.push(made.clone());
        made
    }
}

fn find<T: Any + Send + Sync>(all: &[Value]) -> Option<Arc<T>> {
    let found = all.iter().find(|a| (***a).is::<T>())?;
    Some(Arc::downcast(found.clone()).expect("the value found is a T"))
}

#[cfg(test)]
mod tests {
    use super::Attached;

    #[derive(Default)]
    struct Counter(std::sync::atomic::AtomicU32);

    #[test]
    fn each_type_has_one_value_kept_across_calls() {
        let attached = Attached::default();
        let a = attached.get::<Counter>();
        a.0.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let again = attached.get::<Counter>();
        assert_eq!(again.0.load(std::sync::atomic::Ordering::Relaxed), 1);
        assert!(std::sync::Arc::ptr_eq(&a, &again));
        // Another type is another value.
        assert_eq!(*attached.get::<String>(), "");
        attached
            .get::<parking_lot::Mutex<String>>()
            .lock()
            .push('x');
        assert_eq!(*attached.get::<parking_lot::Mutex<String>>().lock(), "x");
        assert_eq!(again.0.load(std::sync::atomic::Ordering::Relaxed), 1);
    }
}
