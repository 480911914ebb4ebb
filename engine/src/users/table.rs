//! The `users` table. Keys (database numbers big-endian, so one database's entries are one
//! prefix and a deleted database's go in one range delete):
//! - `db | 'u' | user id` → [`UserDef`] as JSON;
//! - `db | 'p' | user number | permission id` → [`PermissionDef`] as JSON (keyed by the user's
//!   number, not its id, so renaming a user keeps its permissions, as the service does);
//! - `next` (4 bytes, shorter than any other key) → the counter that numbers users and
//!   permissions and versions their writes.
//!
//! Ids are at most 255 bytes (the gateway checks), so a key stays under LMDB's 511.

use heed::types::Bytes;
use heed::{Database, RoTxn, RwTxn, WithoutTls};

use super::{PermissionDef, PermissionSpec, UserDef, UsersOp, UsersOutput};
use crate::catalog::DatabaseDef;
use crate::error::{Error, Result};
use crate::storage::Store;
use crate::writer::apply::Ctx;

const NEXT: &[u8] = b"next";

pub(crate) fn user_key(db: u32, id: &str) -> Vec<u8> {
    let mut k = db.to_be_bytes().to_vec();
    k.push(b'u');
    k.extend_from_slice(id.as_bytes());
    k
}

fn permissions_prefix(db: u32, user: u32) -> Vec<u8> {
    let mut k = db.to_be_bytes().to_vec();
    k.push(b'p');
    k.extend_from_slice(&user.to_be_bytes());
    k
}

fn permission_key(db: u32, user: u32, id: &str) -> Vec<u8> {
    let mut k = permissions_prefix(db, user);
    k.extend_from_slice(id.as_bytes());
    k
}

fn table(store: &Store) -> Result<Database<'static, Bytes, Bytes>> {
    store.users.ok_or_else(|| Error::NotFound {
        what: "users (this store was written before users existed)".into(),
    })
}

fn decode<T: serde::de::DeserializeOwned>(bytes: &[u8]) -> Result<T> {
    serde_json::from_slice(bytes).map_err(|e| Error::Corrupt(format!("a stored user: {e}")))
}

fn encode<T: serde::Serialize>(v: &T) -> Vec<u8> {
    serde_json::to_vec(v).expect("users serialize")
}

/// Every entry under `prefix`, decoded.
fn scan<T: serde::de::DeserializeOwned>(
    t: Database<'static, Bytes, Bytes>,
    rtxn: &RoTxn<'_, WithoutTls>,
    prefix: &[u8],
) -> Result<Vec<T>> {
    let mut out = Vec::new();
    for entry in t.prefix_iter(rtxn, prefix)? {
        let (_, v) = entry?;
        out.push(decode(v)?);
    }
    Ok(out)
}

pub(crate) fn read_user(store: &Store, db: u32, id: &str) -> Result<Option<UserDef>> {
    let t = table(store)?;
    store.read(|rtxn| t.get(rtxn, &user_key(db, id))?.map(decode).transpose())
}

pub(crate) fn list_users(store: &Store, db: u32) -> Result<Vec<UserDef>> {
    let Some(t) = store.users else {
        return Ok(Vec::new());
    };
    let mut prefix = db.to_be_bytes().to_vec();
    prefix.push(b'u');
    store.read(|rtxn| scan(t, rtxn, &prefix))
}

pub(crate) fn list_permissions(store: &Store, db: u32, user: u32) -> Result<Vec<PermissionDef>> {
    let Some(t) = store.users else {
        return Ok(Vec::new());
    };
    store.read(|rtxn| scan(t, rtxn, &permissions_prefix(db, user)))
}

/// Applies one users write in the writer's transaction. Refusals (404, 409, 400) write nothing.
pub(crate) fn apply(
    ctx: &mut Ctx,
    databases: &std::collections::HashMap<String, DatabaseDef>,
    op: &UsersOp,
) -> Result<UsersOutput> {
    let t = table(ctx.store)?;
    let database = match op {
        UsersOp::CreateUser { database, .. }
        | UsersOp::UpsertUser { database, .. }
        | UsersOp::ReplaceUser { database, .. }
        | UsersOp::DeleteUser { database, .. }
        | UsersOp::CreatePermission { database, .. }
        | UsersOp::UpsertPermission { database, .. }
        | UsersOp::ReplacePermission { database, .. }
        | UsersOp::DeletePermission { database, .. } => database,
    };
    let db = databases
        .get(database)
        .ok_or_else(|| Error::NotFound {
            what: format!("database '{database}'"),
        })?
        .number();
    let w = Writes {
        t,
        db,
        now: ctx.now,
    };
    match op {
        UsersOp::CreateUser { id, .. } => {
            if w.user(ctx.wtxn, id)?.is_some() {
                return Err(conflict(&format!("user '{id}'")));
            }
            w.put_user(ctx.wtxn, id, None)
                .map(|u| UsersOutput::User(u, true))
        }
        UsersOp::UpsertUser { id, .. } => {
            let old = w.user(ctx.wtxn, id)?;
            let created = old.is_none();
            w.put_user(ctx.wtxn, id, old.map(|u| u.number))
                .map(|u| UsersOutput::User(u, created))
        }
        UsersOp::ReplaceUser { id, new_id, .. } => {
            let old = w.user(ctx.wtxn, id)?.ok_or_else(|| user_gone(id))?;
            if new_id != id {
                if w.user(ctx.wtxn, new_id)?.is_some() {
                    return Err(conflict(&format!("user '{new_id}'")));
                }
                t.delete(ctx.wtxn, &user_key(db, id))?;
            }
            w.put_user(ctx.wtxn, new_id, Some(old.number))
                .map(|u| UsersOutput::User(u, false))
        }
        UsersOp::DeleteUser { id, .. } => {
            let old = w.user(ctx.wtxn, id)?.ok_or_else(|| user_gone(id))?;
            t.delete(ctx.wtxn, &user_key(db, id))?;
            delete_prefix(t, ctx.wtxn, &permissions_prefix(db, old.number))?;
            Ok(UsersOutput::Deleted)
        }
        UsersOp::CreatePermission { user, spec, .. } => {
            let u = w.user(ctx.wtxn, user)?.ok_or_else(|| user_gone(user))?;
            if w.permission(ctx.wtxn, u.number, &spec.id)?.is_some() {
                return Err(conflict(&format!("permission '{}'", spec.id)));
            }
            w.check_one_per_resource(ctx.wtxn, u.number, spec, None)?;
            w.put_permission(ctx.wtxn, u.number, spec, None)
                .map(|p| UsersOutput::Permission(p, true))
        }
        UsersOp::UpsertPermission { user, spec, .. } => {
            let u = w.user(ctx.wtxn, user)?.ok_or_else(|| user_gone(user))?;
            let old = w.permission(ctx.wtxn, u.number, &spec.id)?;
            w.check_one_per_resource(ctx.wtxn, u.number, spec, Some(&spec.id))?;
            let created = old.is_none();
            w.put_permission(ctx.wtxn, u.number, spec, old.map(|p| p.number))
                .map(|p| UsersOutput::Permission(p, created))
        }
        UsersOp::ReplacePermission { user, id, spec, .. } => {
            let u = w.user(ctx.wtxn, user)?.ok_or_else(|| user_gone(user))?;
            let old = w
                .permission(ctx.wtxn, u.number, id)?
                .ok_or_else(|| permission_gone(id))?;
            if spec.id != *id && w.permission(ctx.wtxn, u.number, &spec.id)?.is_some() {
                return Err(conflict(&format!("permission '{}'", spec.id)));
            }
            w.check_one_per_resource(ctx.wtxn, u.number, spec, Some(id))?;
            t.delete(ctx.wtxn, &permission_key(db, u.number, id))?;
            w.put_permission(ctx.wtxn, u.number, spec, Some(old.number))
                .map(|p| UsersOutput::Permission(p, false))
        }
        UsersOp::DeletePermission { user, id, .. } => {
            let u = w.user(ctx.wtxn, user)?.ok_or_else(|| user_gone(user))?;
            if !t.delete(ctx.wtxn, &permission_key(db, u.number, id))? {
                return Err(permission_gone(id));
            }
            Ok(UsersOutput::Deleted)
        }
    }
}

/// Deletes every user and permission of database `db` (with the database).
pub(crate) fn drop_database(ctx: &mut Ctx, db: u32) -> Result<()> {
    if let Some(t) = ctx.store.users {
        delete_prefix(t, ctx.wtxn, &db.to_be_bytes())?;
    }
    Ok(())
}

fn delete_prefix(
    t: Database<'static, Bytes, Bytes>,
    wtxn: &mut RwTxn,
    prefix: &[u8],
) -> Result<()> {
    let mut keys = Vec::new();
    for entry in t.prefix_iter(wtxn, prefix)? {
        keys.push(entry?.0.to_vec());
    }
    for k in keys {
        t.delete(wtxn, &k)?;
    }
    Ok(())
}

struct Writes {
    t: Database<'static, Bytes, Bytes>,
    db: u32,
    now: u64,
}

impl Writes {
    fn user(&self, wtxn: &RwTxn, id: &str) -> Result<Option<UserDef>> {
        self.t
            .get(wtxn, &user_key(self.db, id))?
            .map(decode)
            .transpose()
    }

    fn permission(&self, wtxn: &RwTxn, user: u32, id: &str) -> Result<Option<PermissionDef>> {
        self.t
            .get(wtxn, &permission_key(self.db, user, id))?
            .map(decode)
            .transpose()
    }

    /// The next value of the table's counter (never 0).
    fn next(&self, wtxn: &mut RwTxn) -> Result<u64> {
        let n =
            match self.t.get(wtxn, NEXT)? {
                Some(b) => u64::from_be_bytes(b.try_into().map_err(|_| {
                    Error::Corrupt("the users table's counter is not 8 bytes".into())
                })?),
                None => 0,
            } + 1;
        self.t.put(wtxn, NEXT, &n.to_be_bytes())?;
        Ok(n)
    }

    fn put_user(&self, wtxn: &mut RwTxn, id: &str, number: Option<u32>) -> Result<UserDef> {
        let version = self.next(wtxn)?;
        // A user's number is 31 bits (its `_rid` keeps the collection bit clear) and never 0.
        let number = number.unwrap_or(((version & 0x7fff_ffff) as u32).max(1));
        let u = UserDef {
            id: id.to_owned(),
            number,
            ts: self.now,
            version,
        };
        self.t.put(wtxn, &user_key(self.db, id), &encode(&u))?;
        Ok(u)
    }

    fn put_permission(
        &self,
        wtxn: &mut RwTxn,
        user: u32,
        spec: &PermissionSpec,
        number: Option<u64>,
    ) -> Result<PermissionDef> {
        let version = self.next(wtxn)?;
        let p = PermissionDef {
            spec: spec.clone(),
            user,
            number: number.unwrap_or(version),
            ts: self.now,
            version,
        };
        self.t
            .put(wtxn, &permission_key(self.db, user, &spec.id), &encode(&p))?;
        Ok(p)
    }

    /// "You can associate only one permission to a particular resource for a user ... (409
    /// Conflict)" (REST API, Permissions). `except`: the permission being rewritten.
    fn check_one_per_resource(
        &self,
        wtxn: &RwTxn,
        user: u32,
        spec: &PermissionSpec,
        except: Option<&str>,
    ) -> Result<()> {
        let prefix = permissions_prefix(self.db, user);
        for entry in self.t.prefix_iter(wtxn, &prefix)? {
            let (_, v) = entry?;
            let p: PermissionDef = decode(v)?;
            if Some(p.spec.id.as_str()) != except
                && p.spec.resource.trim_matches('/') == spec.resource.trim_matches('/')
            {
                return Err(Error::Conflict {
                    id: format!(
                        "{} (permission '{}' of this user is on the resource {} already)",
                        spec.id, p.spec.id, spec.resource
                    ),
                });
            }
        }
        Ok(())
    }
}

fn conflict(what: &str) -> Error {
    Error::Conflict { id: what.into() }
}

fn user_gone(id: &str) -> Error {
    Error::NotFound {
        what: format!("user '{id}'"),
    }
}

fn permission_gone(id: &str) -> Error {
    Error::NotFound {
        what: format!("permission '{id}'"),
    }
}
