//! Users and permissions on real LMDB: what the writer keeps (ids unique per database, one
//! permission per resource and user, a renamed user keeps its number and permissions), what goes
//! with a user or a database, and that they survive a restart and read in a read-only open.

mod common;

use engine::{Engine, EngineOptions, PermissionMode, PermissionSpec, StorageOptions};
use serde_json::json;

fn spec(id: &str, mode: PermissionMode, resource: &str) -> PermissionSpec {
    PermissionSpec {
        id: id.into(),
        mode,
        mode_as_sent: String::new(),
        resource: resource.into(),
        resource_partition_key: None,
    }
}

/// Opens `dir`, waiting for a handle dropped just before to let go of it.
fn reopen(dir: &std::path::Path, opts: EngineOptions) -> Engine {
    for _ in 0..100 {
        if let Ok(e) = Engine::open(dir, opts.clone()) {
            return e;
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    Engine::open(dir, opts).expect("the engine reopens")
}

#[test]
fn users_and_permissions_are_kept_renamed_revoked_and_dropped_with_their_database() {
    let dir = tempfile::tempdir().unwrap();
    let (alice_number, permission_number) = common::rt().block_on(async {
        let engine = Engine::open(dir.path(), EngineOptions::default()).unwrap();
        let db = engine.create_database_if_not_exists("db").await.unwrap();
        let users = db.users();
        let alice = users.create_user("alice").await.unwrap();
        assert_eq!(
            users.create_user("alice").await.unwrap_err().status_code(),
            409
        );
        let (_, created) = users.upsert_user("bob").await.unwrap();
        assert!(created);
        let (_, created) = users.upsert_user("bob").await.unwrap();
        assert!(!created, "an upsert of an existing user rewrites it");
        let read = users
            .create_permission("alice", spec("r", PermissionMode::Read, "dbs/db/colls/a"))
            .await
            .unwrap();
        let mut keyed = spec("w", PermissionMode::All, "dbs/db/colls/b");
        keyed.resource_partition_key = Some(json!([1]));
        users.create_permission("alice", keyed).await.unwrap();
        // One permission per resource and user.
        let again = users
            .create_permission("alice", spec("r2", PermissionMode::All, "dbs/db/colls/a/"))
            .await;
        assert_eq!(again.unwrap_err().status_code(), 409);
        // Renaming keeps the number, so the permissions follow.
        let ann = users.replace_user("alice", "ann").await.unwrap();
        assert_eq!(ann.number, alice.number);
        assert_eq!(users.read_user("alice").unwrap_err().status_code(), 404);
        assert_eq!(users.list_permissions("ann").unwrap().len(), 2);
        assert_eq!(
            users
                .replace_user("ann", "bob")
                .await
                .unwrap_err()
                .status_code(),
            409
        );
        // Deleting a user deletes its permissions.
        users
            .create_permission("bob", spec("b", PermissionMode::Read, "dbs/db/colls/a"))
            .await
            .unwrap();
        let bob = users.read_user("bob").unwrap();
        let b = users.read_permission("bob", "b").unwrap();
        users.delete_user("bob").await.unwrap();
        assert!(users
            .permission_by_number(bob.number, b.number)
            .unwrap()
            .is_none());
        assert_eq!(
            users
                .delete_permission("ann", "nope")
                .await
                .unwrap_err()
                .status_code(),
            404
        );
        (ann.number, read.number)
    });
    // A restart keeps them, and a read-only open reads them.
    let read_only = EngineOptions {
        storage: StorageOptions {
            read_only: true,
            ..Default::default()
        },
        ..Default::default()
    };
    for opts in [EngineOptions::default(), read_only] {
        let engine = reopen(dir.path(), opts);
        let users = engine.database("db").users();
        let names: Vec<_> = users
            .list_users()
            .unwrap()
            .into_iter()
            .map(|u| u.id)
            .collect();
        assert_eq!(names, ["ann"]);
        let (u, p) = users
            .permission_by_number(alice_number, permission_number)
            .unwrap()
            .expect("the permission survives");
        assert_eq!((u.id.as_str(), p.spec.id.as_str()), ("ann", "r"));
        let w = users.read_permission("ann", "w").unwrap();
        assert_eq!(w.spec.resource_partition_key, Some(json!([1])));
        drop(engine);
    }
    // Deleting the database deletes its users: one of the same name starts with none.
    common::rt().block_on(async {
        let engine = reopen(dir.path(), EngineOptions::default());
        engine.delete_database("db").await.unwrap();
        let db = engine.create_database_if_not_exists("db").await.unwrap();
        assert!(db.users().list_users().unwrap().is_empty());
        assert!(db
            .users()
            .permission_by_number(alice_number, permission_number)
            .unwrap()
            .is_none());
    });
}
