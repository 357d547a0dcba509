/*
 * physics.cpp: worlds, bodies and steps of ona/physics.h on Box2D 2.4.
 *
 * Design note. A body is one b2Body with one fixture; its number (creation order) is its
 * b2BodyUserData, and the world's `bodies` array maps numbers back. Contacts come from a
 * b2ContactListener into `pending` (an EndContact also comes from a body's destruction, between
 * steps); a step hands them out sorted by pair, stably, so their order depends on the calls made
 * and never on addresses. Pixels become meters at the shim's edge (`meter`).
 */
#include "physics_internal.h"

#include <algorithm>
#include <cmath>
#include <new>

extern "C" void *ona__malloc(size_t size);
extern "C" void ona__free(void *ptr);

namespace {

bool finite(float v) {
    return std::isfinite(v);
}

ona_physics_body id_of(b2Fixture *f) {
    return static_cast<ona_physics_body>(f->GetBody()->GetUserData().pointer);
}

void record(ona_physics_world *w, b2Contact *c, bool begin) {
    ona_physics_contact e{};
    e.begin = begin;
    ona_physics_body a = id_of(c->GetFixtureA()), b = id_of(c->GetFixtureB());
    b2WorldManifold m;
    c->GetWorldManifold(&m);
    int n = c->GetManifold()->pointCount;
    b2Vec2 p(0, 0), normal(0, 0);
    if (n > 0) {
        for (int i = 0; i < n; i++)
            p += m.points[i];
        p *= 1.0f / (float)n;
        normal = m.normal;
    } else {
        p = 0.5f * (c->GetFixtureA()->GetBody()->GetPosition() +
                    c->GetFixtureB()->GetBody()->GetPosition());
    }
    if (a > b) {
        std::swap(a, b);
        normal = -normal;
    }
    e.a = a;
    e.b = b;
    e.x = p.x * w->meter;
    e.y = p.y * w->meter;
    e.nx = normal.x;
    e.ny = normal.y;
    w->pending.push(w, e);
}

} // namespace

void physics_listener::BeginContact(b2Contact *contact) {
    record(w, contact, true);
}

void physics_listener::EndContact(b2Contact *contact) {
    record(w, contact, false);
}

b2Body *physics_body(const ona_physics_world *w, ona_physics_body id) {
    if (!w || w->broken || id == 0 || id > w->bodies.count)
        return nullptr;
    return w->bodies.data[id - 1];
}

extern "C" {

void ona_physics_body_defaults(ona_physics_body_desc *d) {
    if (!d)
        return;
    *d = ona_physics_body_desc{};
    d->density = 1;
    d->friction = 0.2f;
    d->category = 1;
    d->mask = 0xFFFF;
}

const char *ona_physics_body_error(const ona_physics_world *w, const ona_physics_body_desc *d) {
    if (!w || !d)
        return "no world or no desc";
    if (d->type != ONA_PHYSICS_STATIC && d->type != ONA_PHYSICS_DYNAMIC &&
        d->type != ONA_PHYSICS_KINEMATIC)
        return "type must be static, dynamic or kinematic";
    if (!finite(d->x) || !finite(d->y) || !finite(d->angle))
        return "x, y and angle must be finite numbers";
    if (!finite(d->density) || d->density < 0)
        return "density must be a number >= 0";
    if (!finite(d->friction) || d->friction < 0)
        return "friction must be a number >= 0";
    if (!finite(d->restitution) || d->restitution < 0)
        return "restitution must be a number >= 0";
    float slop = b2_linearSlop * w->meter; /* pixels */
    switch (d->shape) {
    case ONA_PHYSICS_BOX:
        if (!finite(d->width) || !finite(d->height) || d->width <= slop || d->height <= slop)
            return "width and height must be numbers larger than Box2D's slop (0.005 m)";
        return nullptr;
    case ONA_PHYSICS_CIRCLE:
        if (!finite(d->radius) || d->radius <= slop)
            return "radius must be a number larger than Box2D's slop (0.005 m)";
        return nullptr;
    case ONA_PHYSICS_POLYGON:
    case ONA_PHYSICS_EDGE:
    case ONA_PHYSICS_CHAIN:
        break;
    default:
        return "shape must be box, circle, polygon, edge or chain";
    }
    uint32_t n = d->point_count;
    if (!d->points)
        return "points are missing";
    if (d->shape == ONA_PHYSICS_POLYGON && (n < 3 || n > ONA_PHYSICS_MAX_POLYGON))
        return "a polygon takes 3 to 8 points";
    if (d->shape == ONA_PHYSICS_EDGE && n != 2)
        return "an edge takes 2 points";
    if (d->shape == ONA_PHYSICS_CHAIN && (n < (d->loop ? 3u : 2u) || n > ONA_PHYSICS_MAX_CHAIN))
        return "a chain takes 2 to 65536 points (a loop at least 3)";
    for (uint32_t i = 0; i < 2 * n; i++)
        if (!finite(d->points[i]))
            return "points must be finite numbers";
    bool closed = d->shape == ONA_PHYSICS_POLYGON || d->loop;
    for (uint32_t i = 0; i < n; i++) {
        if (i + 1 == n && !closed)
            break;
        uint32_t j = (i + 1) % n;
        float dx = d->points[2 * j] - d->points[2 * i],
              dy = d->points[2 * j + 1] - d->points[2 * i + 1];
        if (dx * dx + dy * dy <= slop * slop)
            return "consecutive points must be further apart than Box2D's slop (0.005 m)";
    }
    if (d->shape == ONA_PHYSICS_POLYGON) {
        int sign = 0;
        for (uint32_t i = 0; i < n; i++) {
            const float *p0 = d->points + 2 * i, *p1 = d->points + 2 * ((i + 1) % n),
                        *p2 = d->points + 2 * ((i + 2) % n);
            float cross = (p1[0] - p0[0]) * (p2[1] - p1[1]) - (p1[1] - p0[1]) * (p2[0] - p1[0]);
            int s = cross > 0 ? 1 : cross < 0 ? -1 : 0;
            if (s == 0 || (sign && s != sign))
                return "a polygon's points must make a convex polygon, without three in a line";
            sign = s;
        }
    }
    return nullptr;
}

int ona_physics_world_create(const ona_physics_world_desc *desc, ona_physics_world **out) {
    if (!out)
        return ONA_EINVAL;
    *out = nullptr;
    if (!desc || !finite(desc->gravity_x) || !finite(desc->gravity_y) || !finite(desc->meter) ||
        desc->meter < 0)
        return ONA_EINVAL;
    void *mem = ona__malloc(sizeof(ona_physics_world));
    if (!mem)
        return ONA_ENOMEM;
    ona_physics_world *w = new (mem) ona_physics_world();
    w->meter = desc->meter > 0 ? desc->meter : 64;
    w->inv_meter = 1.0f / w->meter;
    w->charge = desc->charge;
    w->charge_user = desc->charge_user;
    w->listener.w = w;
    int rc = physics_call(w, [&] {
        void *b = physics_alloc(w, sizeof(b2World));
        w->b2 =
            new (b) b2World(b2Vec2(desc->gravity_x * w->inv_meter, desc->gravity_y * w->inv_meter));
        w->b2->SetContactListener(&w->listener);
        return 0;
    });
    if (rc) {
        ona_physics_world_destroy(w);
        return rc;
    }
    *out = w;
    return 0;
}

void ona_physics_world_destroy(ona_physics_world *w) {
    if (!w)
        return;
    if (!w->broken) {
        physics_scope scope(w);
        if (w->b2) {
            w->b2->~b2World(); /* frees only: nothing to refuse */
            physics_free(w->b2);
        }
    }
    physics_free_all(w); /* the arrays, and a broken world's everything */
    w->~ona_physics_world();
    ona__free(w);
}

size_t ona_physics_world_memory(const ona_physics_world *w) {
    return w ? w->bytes : 0;
}

uint32_t ona_physics_world_bodies(const ona_physics_world *w) {
    return w ? w->live : 0;
}

int ona_physics_body_create(ona_physics_world *w, const ona_physics_body_desc *d,
                            ona_physics_body *out) {
    if (out)
        *out = 0;
    if (!w || !d || !out)
        return ONA_EINVAL;
    if (w->broken)
        return ONA_ENOMEM;
    if (ona_physics_body_error(w, d) || w->bodies.count >= UINT32_MAX - 1)
        return ONA_EINVAL;
    return physics_call(w, [&] {
        float k = w->inv_meter;
        b2BodyDef bd;
        bd.type = d->type == ONA_PHYSICS_DYNAMIC     ? b2_dynamicBody
                  : d->type == ONA_PHYSICS_KINEMATIC ? b2_kinematicBody
                                                     : b2_staticBody;
        bd.position.Set(d->x * k, d->y * k);
        bd.angle = d->angle;
        bd.fixedRotation = d->fixed_rotation;
        bd.bullet = d->bullet;
        bd.userData.pointer = (uintptr_t)(w->bodies.count + 1);
        b2PolygonShape poly;
        b2CircleShape circle;
        b2EdgeShape edge;
        b2ChainShape chain; /* its vertices are b2Alloc'd, freed by its destructor */
        b2Shape *shape = nullptr;
        b2Vec2 v[ONA_PHYSICS_MAX_POLYGON];
        switch (d->shape) {
        case ONA_PHYSICS_BOX:
            poly.SetAsBox(0.5f * d->width * k, 0.5f * d->height * k);
            shape = &poly;
            break;
        case ONA_PHYSICS_CIRCLE:
            circle.m_radius = d->radius * k;
            shape = &circle;
            break;
        case ONA_PHYSICS_POLYGON:
            for (uint32_t i = 0; i < d->point_count; i++)
                v[i].Set(d->points[2 * i] * k, d->points[2 * i + 1] * k);
            poly.Set(v, (int32)d->point_count);
            shape = &poly;
            break;
        case ONA_PHYSICS_EDGE:
            edge.SetTwoSided(b2Vec2(d->points[0] * k, d->points[1] * k),
                             b2Vec2(d->points[2] * k, d->points[3] * k));
            shape = &edge;
            break;
        case ONA_PHYSICS_CHAIN: {
            uint32_t n = d->point_count;
            b2Vec2 *pts = static_cast<b2Vec2 *>(physics_alloc(w, n * sizeof(b2Vec2)));
            for (uint32_t i = 0; i < n; i++)
                pts[i].Set(d->points[2 * i] * k, d->points[2 * i + 1] * k);
            if (d->loop)
                chain.CreateLoop(pts, (int32)n);
            else
                chain.CreateChain(pts, (int32)n, pts[0] - (pts[1] - pts[0]),
                                  pts[n - 1] + (pts[n - 1] - pts[n - 2]));
            physics_free(pts);
            shape = &chain;
            break;
        }
        }
        /* The slot first: a refusal below leaves no body numbered without a slot. */
        w->bodies.push(w, nullptr);
        b2Body *body = w->b2->CreateBody(&bd);
        w->bodies.data[w->bodies.count - 1] = body;
        b2FixtureDef fd;
        fd.shape = shape;
        fd.density = d->density;
        fd.friction = d->friction;
        fd.restitution = d->restitution;
        fd.isSensor = d->sensor;
        fd.filter.categoryBits = d->category;
        fd.filter.maskBits = d->mask;
        fd.filter.groupIndex = d->group;
        body->CreateFixture(&fd);
        w->live++;
        *out = (ona_physics_body)w->bodies.count;
        return 0;
    });
}

int ona_physics_body_destroy(ona_physics_world *w, ona_physics_body id) {
    b2Body *b = physics_body(w, id);
    if (!b)
        return w && w->broken ? ONA_ENOMEM : ONA_ESTALE;
    return physics_call(w, [&] {
        w->b2->DestroyBody(b);
        w->bodies.data[id - 1] = nullptr;
        w->live--;
        return 0;
    });
}

#define BODY_OR_FAIL(w, id, b)                                                                     \
    const b2Body *b = physics_body(w, id);                                                         \
    if (!b)                                                                                        \
    return w && w->broken ? ONA_ENOMEM : ONA_ESTALE

int ona_physics_body_position(const ona_physics_world *w, ona_physics_body id, float *x, float *y) {
    BODY_OR_FAIL(w, id, b);
    if (x)
        *x = b->GetPosition().x * w->meter;
    if (y)
        *y = b->GetPosition().y * w->meter;
    return 0;
}

int ona_physics_body_velocity(const ona_physics_world *w, ona_physics_body id, float *vx,
                              float *vy) {
    BODY_OR_FAIL(w, id, b);
    if (vx)
        *vx = b->GetLinearVelocity().x * w->meter;
    if (vy)
        *vy = b->GetLinearVelocity().y * w->meter;
    return 0;
}

int ona_physics_body_angle(const ona_physics_world *w, ona_physics_body id, float *angle) {
    BODY_OR_FAIL(w, id, b);
    if (angle)
        *angle = b->GetAngle();
    return 0;
}

int ona_physics_body_mass(const ona_physics_world *w, ona_physics_body id, float *mass) {
    BODY_OR_FAIL(w, id, b);
    if (mass)
        *mass = b->GetMass();
    return 0;
}

int ona_physics_body_awake(const ona_physics_world *w, ona_physics_body id, bool *awake) {
    BODY_OR_FAIL(w, id, b);
    if (awake)
        *awake = b->IsAwake();
    return 0;
}

int ona_physics_body_set_velocity(ona_physics_world *w, ona_physics_body id, float vx, float vy) {
    b2Body *b = physics_body(w, id);
    if (!b)
        return w && w->broken ? ONA_ENOMEM : ONA_ESTALE;
    if (!finite(vx) || !finite(vy))
        return ONA_EINVAL;
    b->SetLinearVelocity(b2Vec2(vx * w->inv_meter, vy * w->inv_meter));
    b->SetAwake(true);
    return 0;
}

int ona_physics_body_set_position(ona_physics_world *w, ona_physics_body id, float x, float y,
                                  float angle) {
    b2Body *b = physics_body(w, id);
    if (!b)
        return w && w->broken ? ONA_ENOMEM : ONA_ESTALE;
    if (!finite(x) || !finite(y) || !finite(angle))
        return ONA_EINVAL;
    return physics_call(w, [&] { /* moves the proxies: the broad phase may grow */
                                 b->SetTransform(b2Vec2(x * w->inv_meter, y * w->inv_meter), angle);
                                 b->SetAwake(true);
                                 return 0;
    });
}

int ona_physics_body_impulse(ona_physics_world *w, ona_physics_body id, float ix, float iy) {
    b2Body *b = physics_body(w, id);
    if (!b)
        return w && w->broken ? ONA_ENOMEM : ONA_ESTALE;
    if (!finite(ix) || !finite(iy))
        return ONA_EINVAL;
    b->ApplyLinearImpulseToCenter(b2Vec2(ix * w->inv_meter, iy * w->inv_meter), true);
    return 0;
}

int ona_physics_step(ona_physics_world *w, float dt, const ona_physics_contact **contacts,
                     size_t *count) {
    if (contacts)
        *contacts = nullptr;
    if (count)
        *count = 0;
    if (!w || !(dt > 0 && dt <= 1))
        return ONA_EINVAL;
    return physics_call(w, [&] {
        w->contacts.count = 0;
        w->b2->Step(dt, 8, 3);
        /* The step's contacts (and those of destructions since the last), by pair. */
        std::swap(w->contacts, w->pending);
        std::stable_sort(w->contacts.data, w->contacts.data + w->contacts.count,
                         [](const ona_physics_contact &x, const ona_physics_contact &y) {
                             return x.a != y.a ? x.a < y.a : x.b < y.b;
                         });
        if (contacts)
            *contacts = w->contacts.data;
        if (count)
            *count = w->contacts.count;
        return 0;
    });
}

} /* extern "C" */
