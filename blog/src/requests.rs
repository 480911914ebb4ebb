//! What the handlers call: a model's requests (C1–C4, Q1–Q6), each timed and charged into the
//! instance's [`Measurements`] so `/models` can show what every request costs in every model.

use std::future::{ready, Future, Ready};
use std::marker::PhantomData;
use std::time::Instant;

use actix_web::dev::Payload;
use actix_web::{web, FromRequest, HttpRequest};

use crate::access::{self, DbOf, Page, Result};
use crate::comparison::{Measurements, Request};
use crate::model::{Comment, Like, Post, PostShort, User};
use crate::versions::Version;

/// The requests of model `M` for one HTTP request.
pub struct Requests<M: Version> {
    pub db: DbOf<M::Containers>,
    measurements: web::Data<Measurements>,
    model: PhantomData<M>,
}

impl<M: Version> Requests<M> {
    /// Runs `f` as request `request` of this model, recording its RU and latency when it succeeds.
    async fn timed<T>(&self, request: Request, f: impl Future<Output = Result<T>>) -> Result<T> {
        let started = Instant::now();
        let (r, cost) = cosmos::ledger::measured(f).await;
        let r = r?;
        self.measurements
            .record(M::NAME, request, cost.total(), started.elapsed());
        Ok(r)
    }

    pub async fn c1_create_user(&self, user: User) -> Result<User> {
        self.timed(Request::C1, access::c1_user::create_user(&self.db, user))
            .await
    }

    pub async fn c1_change_username(&self, id: &str, new: &str) -> Result<User> {
        self.timed(
            Request::C1,
            access::c1_user::change_username(&self.db, id, new),
        )
        .await
    }

    pub async fn user_by_username(&self, username: &str) -> Result<Option<User>> {
        access::sign_in::user_by_username(&self.db, username).await
    }

    pub async fn q1_user(&self, user_id: &str) -> Result<User> {
        self.timed(Request::Q1, access::q1_user::user(&self.db, user_id))
            .await
    }

    pub async fn q2_post(&self, post_id: &str) -> Result<Post> {
        self.timed(Request::Q2, M::q2_post(&self.db, post_id)).await
    }

    pub async fn q3_user_posts(
        &self,
        user_id: &str,
        continuation: Option<String>,
    ) -> Result<Page<PostShort>> {
        self.timed(
            Request::Q3,
            M::q3_user_posts(&self.db, user_id, continuation),
        )
        .await
    }

    pub async fn q4_comments(
        &self,
        post_id: &str,
        continuation: Option<String>,
    ) -> Result<Page<Comment>> {
        self.timed(Request::Q4, M::q4_comments(&self.db, post_id, continuation))
            .await
    }

    pub async fn q5_likes(
        &self,
        post_id: &str,
        continuation: Option<String>,
    ) -> Result<Page<Like>> {
        self.timed(Request::Q5, M::q5_likes(&self.db, post_id, continuation))
            .await
    }

    pub async fn q6_feed(&self) -> Result<Vec<PostShort>> {
        self.timed(Request::Q6, M::q6_feed(&self.db)).await
    }

    pub async fn c2_create_post(&self, post: Post) -> Result<()> {
        self.timed(Request::C2, M::c2_create_post(&self.db, post))
            .await
    }

    pub async fn c2_edit_post(
        &self,
        post_id: &str,
        title: &str,
        content: &str,
        html: &str,
    ) -> Result<()> {
        self.timed(
            Request::C2,
            M::c2_edit_post(&self.db, post_id, title, content, html),
        )
        .await
    }

    pub async fn c3_create_comment(&self, comment: &Comment) -> Result<()> {
        self.timed(Request::C3, M::c3_create_comment(&self.db, comment))
            .await
    }

    pub async fn c4_like(&self, like: &Like) -> Result<bool> {
        self.timed(Request::C4, M::c4_like(&self.db, like)).await
    }

    pub async fn c4_unlike(&self, post_id: &str, user_id: &str) -> Result<bool> {
        self.timed(Request::C4, M::c4_unlike(&self.db, post_id, user_id))
            .await
    }

    pub async fn likes_post(&self, post_id: &str, user_id: &str) -> Result<bool> {
        M::likes_post(&self.db, post_id, user_id).await
    }
}

impl<M: Version> FromRequest for Requests<M> {
    type Error = actix_web::Error;
    type Future = Ready<Result<Self, Self::Error>>;

    fn from_request(req: &HttpRequest, payload: &mut Payload) -> Self::Future {
        let db = match DbOf::<M::Containers>::from_request(req, payload).into_inner() {
            Ok(db) => db,
            Err(e) => return ready(Err(e)),
        };
        let measurements = req
            .app_data::<web::Data<Measurements>>()
            .cloned()
            .unwrap_or_else(|| web::Data::new(Measurements::default()));
        ready(Ok(Requests {
            db,
            measurements,
            model: PhantomData,
        }))
    }
}

impl<M: Version> Requests<M> {
    /// Requests outside an HTTP request (the `/models` sample run), on their own ledger.
    pub fn new(
        containers: web::Data<M::Containers>,
        measurements: web::Data<Measurements>,
    ) -> Self {
        Requests {
            db: DbOf::new(containers),
            measurements,
            model: PhantomData,
        }
    }
}
