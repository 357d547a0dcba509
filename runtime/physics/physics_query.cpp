/*
 * physics_query.cpp: rays, boxes, outlines and the body list of ona/physics.h.
 *
 * Design note. Box2D reports a ray's or a box's fixtures in its tree's order, which depends on
 * the history of insertions; every result here is sorted (hits by fraction then body, bodies by
 * number) so it depends only on the geometry.
 */
#include "physics_internal.h"

#include <algorithm>
#include <cmath>

namespace {

struct ray_collector : b2RayCastCallback {
    ona_physics_world *w;
    explicit ray_collector(ona_physics_world *world) : w(world) {}
    float ReportFixture(b2Fixture *f, const b2Vec2 &p, const b2Vec2 &n, float fraction) override {
        if (f->IsSensor())
            return -1; /* passed over */
        ona_physics_hit h{};
        h.body = static_cast<ona_physics_body>(f->GetBody()->GetUserData().pointer);
        h.x = p.x * w->meter;
        h.y = p.y * w->meter;
        h.nx = n.x;
        h.ny = n.y;
        h.fraction = fraction;
        w->hits.push(w, h);
        return 1; /* every hit: sorted after */
    }
};

struct box_collector : b2QueryCallback {
    ona_physics_world *w;
    explicit box_collector(ona_physics_world *world) : w(world) {}
    bool ReportFixture(b2Fixture *f) override {
        w->found.push(w, static_cast<ona_physics_body>(f->GetBody()->GetUserData().pointer));
        return true;
    }
};

bool finite4(float a, float b, float c, float d) {
    return std::isfinite(a) && std::isfinite(b) && std::isfinite(c) && std::isfinite(d);
}

} // namespace

extern "C" {

int ona_physics_raycast(ona_physics_world *w, float x1, float y1, float x2, float y2, bool all,
                        const ona_physics_hit **hits, size_t *count) {
    if (hits)
        *hits = nullptr;
    if (count)
        *count = 0;
    if (!w || !finite4(x1, y1, x2, y2))
        return ONA_EINVAL;
    return physics_call(w, [&] {
        w->hits.count = 0;
        b2Vec2 p1(x1 * w->inv_meter, y1 * w->inv_meter), p2(x2 * w->inv_meter, y2 * w->inv_meter);
        if (b2DistanceSquared(p1, p2) > 0) { /* Box2D asserts on a zero-length ray */
            ray_collector rc(w);
            w->b2->RayCast(&rc, p1, p2);
        }
        std::sort(w->hits.data, w->hits.data + w->hits.count,
                  [](const ona_physics_hit &a, const ona_physics_hit &b) {
                      return a.fraction != b.fraction ? a.fraction < b.fraction : a.body < b.body;
                  });
        if (!all && w->hits.count > 1)
            w->hits.count = 1;
        if (hits)
            *hits = w->hits.data;
        if (count)
            *count = w->hits.count;
        return 0;
    });
}

int ona_physics_query(ona_physics_world *w, float x1, float y1, float x2, float y2,
                      const ona_physics_body **bodies, size_t *count) {
    if (bodies)
        *bodies = nullptr;
    if (count)
        *count = 0;
    if (!w || !finite4(x1, y1, x2, y2))
        return ONA_EINVAL;
    return physics_call(w, [&] {
        w->found.count = 0;
        b2AABB box;
        box.lowerBound.Set(std::min(x1, x2) * w->inv_meter, std::min(y1, y2) * w->inv_meter);
        box.upperBound.Set(std::max(x1, x2) * w->inv_meter, std::max(y1, y2) * w->inv_meter);
        box_collector bc(w);
        w->b2->QueryAABB(&bc, box);
        ona_physics_body *b = w->found.data, *e = b + w->found.count;
        std::sort(b, e);
        w->found.count = (size_t)(std::unique(b, e) - b);
        if (bodies)
            *bodies = w->found.data;
        if (count)
            *count = w->found.count;
        return 0;
    });
}

int ona_physics_list(ona_physics_world *w, const ona_physics_body **bodies, size_t *count) {
    if (bodies)
        *bodies = nullptr;
    if (count)
        *count = 0;
    return physics_call(w, [&] {
        w->found.count = 0;
        for (size_t i = 0; i < w->bodies.count; i++)
            if (w->bodies.data[i])
                w->found.push(w, (ona_physics_body)(i + 1));
        if (bodies)
            *bodies = w->found.data;
        if (count)
            *count = w->found.count;
        return 0;
    });
}

int ona_physics_outline(ona_physics_world *w, ona_physics_body id, ona_physics_outline_view *out) {
    b2Body *b = physics_body(w, id);
    if (!b)
        return w && w->broken ? ONA_ENOMEM : ONA_ESTALE;
    if (!out)
        return ONA_EINVAL;
    return physics_call(w, [&] {
        *out = ona_physics_outline_view{};
        const b2Transform &t = b->GetTransform();
        out->type = b->GetType() == b2_dynamicBody     ? ONA_PHYSICS_DYNAMIC
                    : b->GetType() == b2_kinematicBody ? ONA_PHYSICS_KINEMATIC
                                                       : ONA_PHYSICS_STATIC;
        out->awake = b->IsAwake();
        out->x = t.p.x * w->meter;
        out->y = t.p.y * w->meter;
        out->angle = b->GetAngle();
        w->outline.count = 0;
        const b2Shape *s = b->GetFixtureList()->GetShape();
        const b2Vec2 *v = nullptr;
        int32 n = 0;
        switch (s->GetType()) {
        case b2Shape::e_circle: {
            const b2CircleShape *c = static_cast<const b2CircleShape *>(s);
            b2Vec2 p = b2Mul(t, c->m_p);
            out->shape = ONA_PHYSICS_CIRCLE;
            out->x = p.x * w->meter;
            out->y = p.y * w->meter;
            out->radius = c->m_radius * w->meter;
            return 0;
        }
        case b2Shape::e_polygon: {
            const b2PolygonShape *p = static_cast<const b2PolygonShape *>(s);
            out->shape = ONA_PHYSICS_POLYGON;
            out->closed = true;
            v = p->m_vertices;
            n = p->m_count;
            break;
        }
        case b2Shape::e_edge: {
            const b2EdgeShape *e = static_cast<const b2EdgeShape *>(s);
            out->shape = ONA_PHYSICS_EDGE;
            v = &e->m_vertex1;
            n = 1;
            b2Vec2 a = b2Mul(t, e->m_vertex1), c = b2Mul(t, e->m_vertex2);
            w->outline.push(w, a.x * w->meter);
            w->outline.push(w, a.y * w->meter);
            w->outline.push(w, c.x * w->meter);
            w->outline.push(w, c.y * w->meter);
            v = nullptr;
            n = 0;
            out->count = 2;
            break;
        }
        case b2Shape::e_chain: {
            const b2ChainShape *c = static_cast<const b2ChainShape *>(s);
            out->shape = ONA_PHYSICS_CHAIN;
            v = c->m_vertices;
            n = c->m_count;
            /* A loop repeats its first vertex at the end (CreateLoop). */
            if (n > 2 && c->m_vertices[0] == c->m_vertices[n - 1]) {
                n--;
                out->closed = true;
            }
            break;
        }
        default:
            return 0;
        }
        for (int32 i = 0; i < n; i++) {
            b2Vec2 p = b2Mul(t, v[i]);
            w->outline.push(w, p.x * w->meter);
            w->outline.push(w, p.y * w->meter);
        }
        if (n)
            out->count = (uint32_t)n;
        out->points = w->outline.data;
        return 0;
    });
}

} /* extern "C" */
