/**
 * A request body for every operation that takes one, as `/docs` shows it: valid against the
 * operation's schema (a test parses each one), with dates a little ahead of `now`, so that each
 * is what the API accepts on the day the document is built.
 *
 * @param now when the document is built
 */
export function requestExamples(now: Date): Record<string, unknown> {
  // An event three months ahead, on one day, in Central European Summer Time's offset.
  const day = new Date(now.getTime() + 90 * 86_400_000).toISOString().slice(0, 10);
  const startDate = `${day}T09:00:00+02:00`;
  const endDate = `${day}T17:00:00+02:00`;
  const electricity = { kind: "electricity", quantity: 1200, unit: "kWh", source: "grid" };
  return {
    createEvent: {
      name: "Green Summit",
      description: "A day on climate action for event organisers.",
      location: { address: "Alexanderplatz 1", city: "Berlin", country: "DE", zipCode: "10178" },
      startDate,
      endDate,
      capacity: 200,
      category: "conference",
      tags: ["climate"],
      sustainabilityGoals: { carbonNeutral: true, wasteReduction: 50 },
      waitlistEnabled: true,
      ticketTypes: [
        { name: "Standard", price: { amount: 4500, currency: "EUR" }, capacity: 150 },
        { name: "Student", price: { amount: 1500, currency: "EUR" }, capacity: 50, salesEndAt: startDate },
      ],
    },
    updateEvent: {
      status: "published",
      sustainabilityGoals: { carbonNeutral: true, wasteReduction: 50, renewableEnergy: true },
    },
    checkIn: { confirmationCode: "EVT-7KQ2-M9XH" },
    registerAttendee: {
      eventId: "evt_8f3k2m9q4x7w",
      firstName: "Ada",
      lastName: "Lovelace",
      email: "ada@example.com",
      ticketType: "Standard",
      dietaryPreferences: ["vegetarian"],
      carbonOffset: { opted: true, amount: 5, travelDistance: 420, travelMode: "train" },
    },
    updateAttendee: { company: "Analytical Engines Ltd", dietaryPreferences: ["vegan"] },
    recordPayment: { amount: 4500, method: "bank_transfer", reference: "RF18 5390 0754 7034" },
    refundAttendee: { amount: 1000, reason: "Goodwill: the workshop was cancelled." },
    updatePaymentSettings: { stripeAccountId: "acct_1Nv0FGQ9RKHgCVdK" },
    createWebhook: {
      url: "https://example.com/hooks/event-service",
      events: ["attendee.registered", "attendee.checked_in"],
      description: "Badge printer",
    },
    updateWebhook: { events: ["*"], active: true },
    createActivity: { ...electricity, note: "Venue meter, main hall" },
    updateActivity: { quantity: 1350, dataQuality: "measured" },
    createThreshold: { metric: "emissions_per_attendee_kg", comparison: "above", value: 25 },
    updateThreshold: { value: 20 },
    createVendor: {
      name: "Spree Catering",
      category: "catering",
      contact: { name: "Mia Schmidt", email: "mia@spree-catering.example" },
      location: { city: "Berlin", country: "DE", coordinates: { lat: 52.52, lng: 13.405 } },
      certifications: [{ scheme: "EU Ecolabel", validUntil: `${day.slice(0, 4)}-12-31` }],
    },
    updateVendor: { notes: "Serves the vegetarian menu from local farms." },
    createBooking: {
      vendorId: "ven_5h2n8c4r1z6t",
      services: "Lunch and coffee for 200 guests",
      dataRequested: ["catering", "waste"],
    },
    updateBooking: { services: "Lunch, coffee and a dinner for 200 guests" },
    confirmVendorRequest: { message: "Confirmed: we deliver at 11:30." },
    declineVendorRequest: { message: "We are fully booked that day." },
    createVendorActivity: { kind: "catering", quantity: 200, unit: "meals", mealType: "vegetarian" },
    updateVendorActivity: { quantity: 210 },
  };
}
