//! `DatabaseClient::users()`: users and permissions of one database.

use super::database::DatabaseClient;
use super::engine::Engine;
use crate::error::{Error, Result};
use crate::users::table;
use crate::users::{PermissionDef, PermissionSpec, UserDef, UsersOp, UsersOutput};
use crate::writer::ops::{WriteOp, WriteOutput};

impl DatabaseClient {
    /// The database's users and their permissions.
    pub fn users(&self) -> UsersClient {
        UsersClient {
            engine: self.engine.clone(),
            database: self.id.clone(),
        }
    }
}

#[derive(Clone)]
pub struct UsersClient {
    engine: Engine,
    database: String,
}

impl UsersClient {
    /// The database's number (the first 4 bytes of its users' `_rid`s).
    pub fn database_number(&self) -> Result<u32> {
        self.engine
            .databases()
            .into_iter()
            .find(|d| d.id == self.database)
            .map(|d| d.number())
            .ok_or_else(|| Error::NotFound {
                what: format!("database '{}'", self.database),
            })
    }

    async fn write(&self, op: UsersOp) -> Result<UsersOutput> {
        match self.engine.submit(WriteOp::Users(op)).await? {
            WriteOutput::Users(out) => Ok(out),
            _ => Err(Error::Corrupt("unexpected writer answer".into())),
        }
    }

    fn db(&self) -> String {
        self.database.clone()
    }

    pub async fn create_user(&self, id: &str) -> Result<UserDef> {
        let id = id.to_owned();
        match self
            .write(UsersOp::CreateUser {
                database: self.db(),
                id,
            })
            .await?
        {
            UsersOutput::User(u, _) => Ok(u),
            _ => Err(unexpected()),
        }
    }

    /// Creates or rewrites the user; `true` when it was created.
    pub async fn upsert_user(&self, id: &str) -> Result<(UserDef, bool)> {
        let id = id.to_owned();
        match self
            .write(UsersOp::UpsertUser {
                database: self.db(),
                id,
            })
            .await?
        {
            UsersOutput::User(u, created) => Ok((u, created)),
            _ => Err(unexpected()),
        }
    }

    /// Renames the user (its number, `_rid` and permissions stay).
    pub async fn replace_user(&self, id: &str, new_id: &str) -> Result<UserDef> {
        let op = UsersOp::ReplaceUser {
            database: self.db(),
            id: id.to_owned(),
            new_id: new_id.to_owned(),
        };
        match self.write(op).await? {
            UsersOutput::User(u, _) => Ok(u),
            _ => Err(unexpected()),
        }
    }

    /// Deletes the user and its permissions (their tokens stop working).
    pub async fn delete_user(&self, id: &str) -> Result<()> {
        let id = id.to_owned();
        self.write(UsersOp::DeleteUser {
            database: self.db(),
            id,
        })
        .await
        .map(|_| ())
    }

    pub fn read_user(&self, id: &str) -> Result<UserDef> {
        table::read_user(&self.engine.inner.store, self.database_number()?, id)?.ok_or_else(|| {
            Error::NotFound {
                what: format!("user '{id}'"),
            }
        })
    }

    pub fn list_users(&self) -> Result<Vec<UserDef>> {
        table::list_users(&self.engine.inner.store, self.database_number()?)
    }

    pub async fn create_permission(
        &self,
        user: &str,
        spec: PermissionSpec,
    ) -> Result<PermissionDef> {
        let op = UsersOp::CreatePermission {
            database: self.db(),
            user: user.to_owned(),
            spec,
        };
        self.permission_write(op).await.map(|(p, _)| p)
    }

    /// Creates or rewrites the permission `spec.id`; `true` when it was created.
    pub async fn upsert_permission(
        &self,
        user: &str,
        spec: PermissionSpec,
    ) -> Result<(PermissionDef, bool)> {
        let op = UsersOp::UpsertPermission {
            database: self.db(),
            user: user.to_owned(),
            spec,
        };
        self.permission_write(op).await
    }

    /// Rewrites permission `id` as `spec` (which may rename it).
    pub async fn replace_permission(
        &self,
        user: &str,
        id: &str,
        spec: PermissionSpec,
    ) -> Result<PermissionDef> {
        let op = UsersOp::ReplacePermission {
            database: self.db(),
            user: user.to_owned(),
            id: id.to_owned(),
            spec,
        };
        self.permission_write(op).await.map(|(p, _)| p)
    }

    pub async fn delete_permission(&self, user: &str, id: &str) -> Result<()> {
        let op = UsersOp::DeletePermission {
            database: self.db(),
            user: user.to_owned(),
            id: id.to_owned(),
        };
        self.write(op).await.map(|_| ())
    }

    async fn permission_write(&self, op: UsersOp) -> Result<(PermissionDef, bool)> {
        match self.write(op).await? {
            UsersOutput::Permission(p, created) => Ok((p, created)),
            _ => Err(unexpected()),
        }
    }

    pub fn list_permissions(&self, user: &str) -> Result<Vec<PermissionDef>> {
        let u = self.read_user(user)?;
        table::list_permissions(&self.engine.inner.store, self.database_number()?, u.number)
    }

    pub fn read_permission(&self, user: &str, id: &str) -> Result<PermissionDef> {
        self.list_permissions(user)?
            .into_iter()
            .find(|p| p.spec.id == id)
            .ok_or_else(|| Error::NotFound {
                what: format!("permission '{id}'"),
            })
    }

    /// The permission numbered `number` of the user numbered `user`, with that user, if both
    /// still exist: what a resource token names (deleting either ends the token).
    pub fn permission_by_number(
        &self,
        user: u32,
        number: u64,
    ) -> Result<Option<(UserDef, PermissionDef)>> {
        let db = self.database_number()?;
        let store = &self.engine.inner.store;
        let Some(u) = table::list_users(store, db)?
            .into_iter()
            .find(|u| u.number == user)
        else {
            return Ok(None);
        };
        let p = table::list_permissions(store, db, user)?
            .into_iter()
            .find(|p| p.number == number);
        Ok(p.map(|p| (u, p)))
    }
}

fn unexpected() -> Error {
    Error::Corrupt("unexpected writer answer".into())
}

impl std::fmt::Debug for UsersClient {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("UsersClient")
            .field("database", &self.database)
            .finish()
    }
}
